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
    output_of(Command::new(env!("CARGO_BIN_EXE_host")).args(args), args)
}

/// [`host_output`] with the environment variable `key` set to `value`, or removed (`None`).
pub fn host_output_env(
    args: &[&str],
    key: &str,
    value: Option<&std::path::Path>,
) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_host"));
    command.args(args).env_remove(key);
    if let Some(value) = value {
        command.env(key, value);
    }
    output_of(&mut command, args)
}

fn output_of(command: &mut Command, args: &[&str]) -> (bool, String) {
    let output = command.output().expect("run host");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("host {args:?}:\n{text}");
    (output.status.success(), text)
}
