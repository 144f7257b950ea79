//! Running the `host` binary from a test.

use std::process::Command;

/// Runs `host` with `args`; returns its exit code and stdout.
pub fn host_status(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .output()
        .expect("run host");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    println!("{stdout}{}", String::from_utf8_lossy(&output.stderr));
    (output.status.code(), stdout)
}

/// Runs `host` with `args`, asserting it succeeds; returns its stdout.
pub fn host(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .output()
        .expect("run host");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "host {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{stdout}");
    stdout
}

/// Runs `host` with `args`: whether it succeeded, and all it printed (stdout, then stderr).
pub fn host_output(args: &[&str]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .output()
        .expect("run host");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("host {args:?}:\n{text}");
    (output.status.success(), text)
}
