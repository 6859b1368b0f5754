fn main() -> std::process::ExitCode {
    capkg::cli::main()
}
