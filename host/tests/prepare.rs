//! A proving machine without Rust (the GPU bundle, `scripts/gpu-bundle.sh`): `host guests`
//! writes the pinned guests, each checked against its pin, and a host told to read guests from
//! that folder (`$STATELESS_VERIFIER_GUESTS`) runs them instead of building: the same verdict
//! and public values as the host that builds. A folder without the guest is refused, naming
//! the file it lacks, rather than built from source.

mod support;

use support::blocks;
use support::cli::host_output_env;

/// Runs `host` with `args` and `STATELESS_VERIFIER_GUESTS=guests` (none: unset): success, and
/// all it printed.
fn host_with(guests: Option<&std::path::Path>, args: &[&str]) -> (bool, String) {
    host_output_env(args, "STATELESS_VERIFIER_GUESTS", guests)
}

/// What `host run` prints of the VM's run: its verdict, and the public values it checked
/// against the native run's (block hash, parent hash, post-state root, chain digest).
fn vm_verdict(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            l.contains("in the VM")
                || ["block hash", "post-state root"]
                    .iter()
                    .any(|k| l.contains(k))
        })
        .collect()
}

#[test]
fn a_host_reads_the_exported_pinned_guests_and_builds_none() {
    let dir = std::env::temp_dir().join(format!("host-guests-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let guests = dir.join("guests");
    let (ok, text) = host_with(None, &["guests", "--out", guests.to_str().unwrap()]);
    assert!(ok, "{text}");
    assert_eq!(text.matches("(the pin's)").count(), 2, "{text}");
    for bin in ["guest", "standard"] {
        let elf = std::fs::read(guests.join("ours").join(bin)).unwrap();
        assert!(elf.starts_with(b"\x7fELF"), "{bin} is not an ELF");
    }

    let blocks_dir = blocks();
    let run = [
        "run",
        "--mode",
        "execute",
        "--block",
        "devnet-small",
        "--blocks-dir",
        blocks_dir.to_str().unwrap(),
    ];
    let (ok, built) = host_with(None, &run);
    assert!(ok, "{built}");
    let (ok, read) = host_with(Some(&guests), &run);
    assert!(ok, "{read}");
    assert!(!read.contains("building the guest"), "{read}");
    assert!(
        read.contains("VALID in the VM") && read.contains("public values match the native run"),
        "{read}"
    );
    assert_eq!(vm_verdict(&read), vm_verdict(&built));

    // An empty folder: refused, naming the missing ELF, and nothing built.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (ok, text) = host_with(Some(&empty), &run);
    assert!(!ok, "{text}");
    assert!(!text.contains("building the guest"), "{text}");
    let missing = empty.join("ours").join("guest");
    assert!(
        text.contains(missing.to_str().unwrap()) && text.contains("STATELESS_VERIFIER_GUESTS"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
