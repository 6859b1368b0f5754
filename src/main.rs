// mimalloc instead of the platform's allocator: the tree of a large YAML file is hundreds of
// thousands of small allocations, made and freed on two threads. The musl binaries the release
// ships spent two thirds of `capkg render` in musl's allocator (AWS components: 134 ms against
// 46 ms with mimalloc); on glibc it saves about a sixth of render's CPU time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let code = capkg::cli::main();
    exit(code)
}

/// Ends the process without the C runtime's exit handlers. mimalloc's handler gives every page
/// it holds back to the kernel, one system call per page (85 calls after `capkg assemble` of the
/// AWS components), for memory the kernel takes back at exit anyway. Nothing else is left to do
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
