//! The command-line surface.

/// Entry point used by `main.rs`.
pub fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
