#![allow(unsafe_code)] // the allocator's option, the THP flag and `_exit` (each block says why)

// mimalloc instead of the platform's allocator: the tree of a large YAML file is hundreds of
// thousands of small allocations, made and freed on several threads, and musl's allocator (the
// release's static binaries) is slow at that (benches/README.md, "Why mimalloc, and its
// settings").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    capkg::files::on_large_input(trade_speed_for_memory);
    let code = capkg::cli::main();
    exit(code)
}

/// mimalloc 2's `mi_option_purge_delay` (its `include/mimalloc.h`; libmimalloc-sys names the
/// options only up to 14). A test holds it to the option's documented default.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Once a file of 16 MiB or more is read (`files::read_regular`: lint's release files, assemble's
/// sources), the process trades speed for memory for the rest of the run (issue 17: peak at most
/// 3x the input):
/// - memory freed goes back to the system at once instead of after mimalloc's 10 ms: loading and
///   writing a large file free tens of megabytes shortly before the peak.
/// - pages are no longer transparent huge pages: mimalloc asks for them on all its memory, and
///   each thread's first small objects then hold a 2 MiB page. Processes started afterwards (a
///   sources command) inherit the setting.
///
/// Small files keep both, being markedly slower without them (benches/README.md, "Why mimalloc,
/// and its settings").
fn trade_speed_for_memory() {
    // The hook may run on any thread and more than once, and mimalloc stores options with plain
    // writes: the settings are made once, by whichever thread comes first.
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: sets one integer option, once (above); mimalloc reads it at each purge decision.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
        #[cfg(target_os = "linux")]
        // SAFETY: sets one flag of this process, which the kernel reads at each page fault. A
        // kernel without it returns an error, and the run goes on with huge pages.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
        }
    });
}

/// Ends the process without the C runtime's exit handlers. mimalloc's handler gives every page
/// it holds back to the kernel, one system call per page, for memory the kernel takes back at
/// exit anyway (benches/README.md, "Why mimalloc, and its settings"). Nothing else is left to do
/// by then: `cli::main` has flushed stdout (stderr is not buffered), removed its temporary files
/// and joined its threads.
#[cfg(unix)]
fn exit(code: u8) -> ! {
    // SAFETY: `_exit` only ends the process; no Rust state is observed after it.
    unsafe { libc::_exit(i32::from(code)) }
}

#[cfg(not(unix))]
fn exit(code: u8) -> ! {
    std::process::exit(i32::from(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_input_frees_at_once_and_stops_huge_pages() {
        // SAFETY: reads an integer option of this test process.
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        // 10 ms is `purge_delay`'s documented default; no option before it defaults to 10.
        assert_eq!(before, 10);
        trade_speed_for_memory();
        trade_speed_for_memory();
        // SAFETY: as above.
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(after, 0);
        // The flag a parent process may have set already; set either way after the hook.
        #[cfg(target_os = "linux")]
        {
            // SAFETY: reads a flag of this test process.
            let flag = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
            assert_eq!(flag, 1);
        }
    }
}
