//! `host run --native` as a user runs it: the four verdicts, each with its exit status, its
//! printed word and its JSON, on the project's `devnet-small` block (valid), the same block with
//! a wrong gas used (invalid), the same block with no state nodes in its witness (witness
//! insufficient), and the same block under a config whose merge comes after it (unusable); and
//! `host stateless-input` / `host run --stateless-input` on an execution-spec-tests case; and
//! `host bench` on a folder, against `host run` on each of its guests, and `host run` with a
//! lower segment memory cap.

use std::path::{Path, PathBuf};

mod support;

use alloy_consensus::{Block, TxEnvelope};
use alloy_rlp::Decodable;
use support::blocks;
use support::cli::{host, host_status};

/// A directory holding `devnet-small` under `id`, its block and witness edited.
fn variant(
    id: &str,
    edit_block: impl FnOnce(&mut Block<TxEnvelope>),
    edit_witness: impl FnOnce(&mut serde_json::Value),
) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("host-cli-{}-{id}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rlp = std::fs::read(blocks().join("devnet-small.block.rlp")).unwrap();
    let mut block = Block::<TxEnvelope>::decode(&mut rlp.as_slice()).unwrap();
    edit_block(&mut block);
    std::fs::write(
        dir.join(format!("{id}.block.rlp")),
        alloy_rlp::encode(&block),
    )
    .unwrap();
    let mut witness: serde_json::Value =
        serde_json::from_slice(&std::fs::read(blocks().join("devnet-small.witness.json")).unwrap())
            .unwrap();
    edit_witness(&mut witness);
    std::fs::write(
        dir.join(format!("{id}.witness.json")),
        serde_json::to_vec(&witness).unwrap(),
    )
    .unwrap();
    std::fs::copy(
        blocks().join("devnet-small.chain.json"),
        dir.join(format!("{id}.chain.json")),
    )
    .unwrap();
    dir
}

/// Runs `host run --native` on `id` in `dir`: exit status, stdout, the JSON report.
fn run(dir: &Path, id: &str) -> (i32, String, serde_json::Value) {
    let json = dir.join(format!("{id}.report.json"));
    let (code, stdout) = host_status(&[
        "run",
        "--native",
        "--block",
        id,
        "--blocks-dir",
        dir.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let report = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (code.unwrap(), stdout, report)
}

#[test]
fn four_verdicts_four_exit_statuses() {
    let valid = variant("valid", |_| {}, |_| {});
    let (code, stdout, report) = run(&valid, "valid");
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("VALID natively"), "{stdout}");
    assert!(stdout.contains("chain digest"), "{stdout}");
    assert_eq!(report["verdict"], "valid");
    let digest = report["chain_digest"].as_str().unwrap();
    assert_eq!(digest.len(), 66, "{digest}");

    let invalid = variant("invalid", |b| b.header.gas_used += 1, |_| {});
    let (code, stdout, report) = run(&invalid, "invalid");
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("INVALID"), "{stdout}");
    assert_eq!(report["verdict"], "invalid");
    assert!(report["error"].as_str().unwrap().contains("gas_used"));

    let insufficient = variant(
        "insufficient",
        |_| {},
        |w| w["state"] = serde_json::json!([]),
    );
    let (code, stdout, report) = run(&insufficient, "insufficient");
    assert_eq!(code, 3, "{stdout}");
    assert!(stdout.contains("WITNESS INSUFFICIENT"), "{stdout}");
    assert_eq!(report["verdict"], "insufficient");
    assert_eq!(report["valid"], false);

    let unusable = variant("unusable", |_| {}, |_| {});
    let chain = unusable.join("unusable.chain.json");
    let mut config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&chain).unwrap()).unwrap();
    config["merge_netsplit_block"] = 5.into();
    std::fs::write(&chain, config.to_string()).unwrap();
    let (code, stdout, report) = run(&unusable, "unusable");
    assert_eq!(code, 2, "{stdout}");
    assert!(stdout.contains("UNUSABLE"), "{stdout}");
    assert_eq!(report["verdict"], "unusable");
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains("before the merge"),
        "{report}"
    );

    for dir in [valid, invalid, insufficient, unusable] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// An execution-spec-tests case (its name holds `/`, `:` and `[`) becomes standard inputs under
/// safe file names, each named on stdout; `host run --stateless-input` writes its JSON.
#[test]
fn an_eest_case_becomes_standard_inputs_run_with_json() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let file = shared.join(
        "ef-tests-amsterdam/eip7981_increase_access_list_cost/access_list_cost/access_list_data_cost_with_execution.json.gz",
    );
    let case = "tests/amsterdam/eip7981_increase_access_list_cost/test_access_list_cost.py::test_access_list_data_cost_with_execution[fork_Amsterdam-tx_type_1-blockchain_test_from_state_test-single_address_two_keys]";
    let dir = std::env::temp_dir().join(format!("host-cli-{}-eest", std::process::id()));
    let stdout = host(&[
        "stateless-input",
        "--ef-file",
        file.to_str().unwrap(),
        "--ef-case",
        case,
        "--out",
        dir.to_str().unwrap(),
    ]);
    let written: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let name = written[0].file_name().unwrap().to_str().unwrap();
    assert!(
        name.ends_with("-0.ssz") && name.starts_with("tests_amsterdam_"),
        "{name}"
    );
    assert!(
        stdout.contains(name) && stdout.contains("(valid)"),
        "{stdout}"
    );

    let json = dir.join("run.json");
    let (code, _) = host_status(&[
        "run",
        "--native",
        "--stateless-input",
        written[0].to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["native"]["verdict"], "valid");
    assert_eq!(report["result"]["successful_validation"], true);
    assert_eq!(report["result"]["schema_id"], 0x1501);
    assert!(report["vm"].is_null());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `host bench` meters a folder with both guests: each figure the same as `host run` gives for
/// that guest on that block, the folder's distribution from those figures, and a block that is
/// not valid natively (here: insufficient) reported, not metered.
#[test]
fn bench_meters_a_folder_with_both_guests_as_run_does() {
    // `devnet` (ten transactions) as `bench-valid`, beside `devnet-small` with no state nodes.
    let dir = variant(
        "bench-insufficient",
        |_| {},
        |w| w["state"] = serde_json::json!([]),
    );
    for file in ["block.rlp", "witness.json", "chain.json"] {
        let to = dir.join(format!("bench-valid.{file}"));
        std::fs::copy(blocks().join(format!("devnet.{file}")), to).unwrap();
    }
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let dir_arg = dir.to_str().unwrap();
    let stdout = host(&[
        "bench",
        "--blocks-dir",
        dir_arg,
        "--json",
        &path("bench.json"),
    ]);
    assert!(stdout.contains("gas-weighted mean"), "{stdout}");
    let bench: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path("bench.json")).unwrap()).unwrap();
    let rows = bench["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{bench}");
    let (bad, good) = (&rows[0], &rows[1]);
    assert_eq!(bad["block"], "bench-insufficient");
    assert!(
        bad["note"].as_str().unwrap().contains("not valid natively"),
        "{bad}"
    );
    assert!(bad["block_guest"]["figures"].is_null());
    assert_eq!(good["block"], "bench-valid");
    let gas = good["gas"].as_u64().unwrap();
    assert!(gas > 0, "{good}");

    // The block guest: the figures `host run` meters.
    host(&[
        "run",
        "--block",
        "bench-valid",
        "--blocks-dir",
        dir_arg,
        "--json",
        &path("run.json"),
    ]);
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path("run.json")).unwrap()).unwrap();
    let block = &good["block_guest"]["figures"];
    segments_end_at_the_memory_cap(dir_arg, &run, &path("run-1024.json"));
    for (bench_key, run_key) in [
        ("instructions", "instructions"),
        ("main_cells", "main_cells"),
        ("segments", "segments"),
        ("memory_bytes", "memory_bytes"),
    ] {
        assert_eq!(
            block[bench_key], run[run_key],
            "{bench_key}: {block} against {run}"
        );
    }
    // The standard guest: the figures `host run --stateless-input` meters on the bytes
    // `host stateless-input` writes.
    let ssz = path("bench-valid.ssz");
    host(&[
        "stateless-input",
        "--block",
        "bench-valid",
        "--blocks-dir",
        dir_arg,
        "--out",
        &ssz,
    ]);
    host(&[
        "run",
        "--stateless-input",
        &ssz,
        "--json",
        &path("standard.json"),
    ]);
    let standard: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path("standard.json")).unwrap()).unwrap();
    let metering = &standard["vm"]["metering"];
    let figures = &good["standard_guest"]["figures"];
    assert_eq!(
        figures["instructions"], metering["instructions"],
        "{figures}"
    );
    assert_eq!(figures["main_cells"], metering["main_cells"], "{figures}");
    assert_eq!(
        figures["segments"].as_u64().unwrap(),
        metering["segments"].as_array().unwrap().len() as u64
    );
    // The same input with its nodes and codes shuffled, metered beside it: still valid (a
    // guest that said `false` would have left a note, not figures).
    let shuffled = &good["shuffled"]["figures"];
    assert!(shuffled["main_cells"].as_u64().unwrap() > 0, "{good}");
    assert!(bad["shuffled"].is_null(), "{bad}");
    for guest in [block, figures] {
        for share in ["keccak_share", "poseidon2_share"] {
            let share = guest[share].as_f64().unwrap();
            assert!(share > 0.0 && share < 1.0, "{guest}");
        }
    }

    // One metered block: its cells per gas are the folder's mean, median and max.
    let cells_per_gas = block["main_cells"].as_u64().unwrap() as f64 / gas as f64;
    let d = &bench["distributions"]["block_guest"];
    assert_eq!(d["blocks"], 1);
    for key in ["gas_weighted_mean", "median", "max"] {
        assert_eq!(d[key].as_f64().unwrap(), cells_per_gas, "{key}: {d}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `host run --segment-memory-mib 1024` on the block `default` was metered on (OpenVM's 15 GiB
/// cap): the same instructions cut into more segments, each estimated at most near the cap,
/// and more main cells, as the pages each segment touches are paid again in the next.
fn segments_end_at_the_memory_cap(dir: &str, default: &serde_json::Value, json: &str) {
    host(&[
        "run",
        "--block",
        "bench-valid",
        "--blocks-dir",
        dir,
        "--segment-memory-mib",
        "1024",
        "--json",
        json,
    ]);
    let capped: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    assert_eq!(capped["instructions"], default["instructions"]);
    let segments = |report: &serde_json::Value| report["segments"].as_u64().unwrap();
    assert!(
        segments(&capped) > segments(default),
        "{capped} against {default}"
    );
    let cells = |report: &serde_json::Value| report["main_cells"].as_u64().unwrap();
    assert!(
        cells(&capped) > cells(default),
        "{capped} against {default}"
    );
    for segment in capped["segment_stats"].as_array().unwrap() {
        // Segmentation checks the estimate every few thousand instructions: a segment may pass
        // the cap by what those add, never by much.
        let mib = segment["memory_bytes"].as_u64().unwrap() >> 20;
        assert!(mib <= 1024 + 64, "{segment}");
    }
}
