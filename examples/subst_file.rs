//! Reads a file, substitutes variables from the process environment and writes the result to
//! stdout: the harness `benches/subst.sh` times against GNU envsubst (until `capkg subst` exists).
//!
//! `subst_file FILE` is drone's `Eval` (names as written, unset = empty, like `capkg subst
//! --plain`); `subst_file --clusterctl FILE` is clusterctl's `Process` with viper-style lookup.

use std::io::Write;
use std::process::ExitCode;

use capkg::subst::{self, Values};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (clusterctl, path) = match args.as_slice() {
        [flag, path] if flag == "--clusterctl" => (true, path),
        [path] => (false, path),
        _ => {
            eprintln!("usage: subst_file [--clusterctl] FILE");
            return ExitCode::from(2);
        }
    };
    let input = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(1);
        }
    };
    let values = Values::new().with_process_env();
    let result = if clusterctl {
        subst::process(&input, &values)
    } else {
        let env = subst::process_env();
        subst::eval(&input, &env)
    };
    match result {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(&out).and_then(|()| stdout.flush()) {
                eprintln!("write: {e}");
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::from(1)
        }
    }
}
