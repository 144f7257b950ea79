//! What the guest commits to and how it ends: the chain config it ran under, and the native
//! verdict for blocks that are not valid (invalid, insufficient, unusable).

use prover::guest::{Crypto, GuestSpec, Keccak};

/// The guest reveals the digest of the chain config it validated under: the devnet block under
/// its own config, and under the same config with Osaka removed (a prover's forgery: the block
/// still validates without Osaka's caps), give the same block hash and different digests, each
/// the digest of the config the input carried.
#[test]
fn the_guest_commits_to_the_chain_config_it_ran_under() {
    use program::PublicValues;
    use prover::guest::{Crypto, GuestSpec};
    use prover::vm::Vm;
    let blocks = tests::project_blocks_dir();
    let honest = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    let mut forged =
        host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    forged
        .chain
        .forks
        .retain(|(fork, _)| *fork != alloy_hardforks::EthereumHardfork::Osaka);
    assert!(
        program::validate_block(&forged.data.block_rlp, &forged.data.witness, &forged.chain)
            .is_ok()
    );
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let vm = Vm::new(spec.build().unwrap(), spec.public_values()).unwrap();
    let reveal = |run: &host::native::NativeRun| {
        PublicValues::from_bytes(
            &vm.execute_items(&prover::vm::slices(&run.guest_input()))
                .unwrap_or_else(|e| panic!("{e}")),
        )
        .unwrap()
    };
    let (h, f) = (reveal(&honest), reveal(&forged));
    assert_eq!(h.block_hash, f.block_hash);
    assert_eq!(h.chain_digest, honest.chain.digest());
    assert_eq!(f.chain_digest, forged.chain.digest());
    assert_ne!(h.chain_digest, f.chain_digest);
}

/// The guest ends with the native run's verdict for blocks that are not valid: tampered devnet
/// blocks (a header field, a body root, an execution result, the state root) are invalid, a
/// witness without the pre-state's root node is insufficient, and a chain config that is not
/// canonical (mainnet's forgeries: Osaka listed first as never activating; a second BPO1 blob
/// schedule) is unusable input. Each ends the guest without public values, with that verdict's
/// exit code: never a panic, a trap, or public values.
#[test]
fn blocks_that_are_not_valid_end_the_guest_with_the_native_verdict() {
    use alloy_consensus::{Block, Header, TxEnvelope};
    use alloy_hardforks::{EthereumHardfork, ForkCondition};
    use alloy_primitives::{Bytes, B256};
    use alloy_rlp::{Decodable, Encodable};
    use program::Verdict;
    use prover::vm::{Vm, VmError};

    let blocks = tests::project_blocks_dir();
    let run = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    assert!(run.verdict.is_ok());
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let vm = Vm::new(spec.build().unwrap(), spec.public_values()).unwrap();
    let witness = &run.data.witness;
    let items = |block: &[u8], witness: &program::ExecutionWitness, chain_rlp: &[u8]| {
        let nodes = witness.state.iter().map(|b| (b.as_ref(), false));
        let all: Vec<_> = nodes
            .chain(witness.codes.iter().map(|b| (b.as_ref(), true)))
            .collect();
        program::guest_items_with_chain_rlp(block, &witness.headers, chain_rlp, all.into_iter())
    };
    let canonical = alloy_rlp::encode(run.chain.canonical());
    let guest = |items: &[Vec<u8>]| match vm.execute_items(&prover::vm::slices(items)) {
        Ok(public) => Ok(public),
        Err(VmError::Refused(verdict)) => Err(verdict),
        Err(e) => panic!("the guest failed instead of reporting a verdict: {e}"),
    };
    // Untampered: valid, with public values.
    assert!(guest(&items(&run.data.block_rlp, witness, &canonical)).is_ok());

    let block = Block::<TxEnvelope>::decode(&mut run.data.block_rlp.as_slice()).unwrap();
    type Edit = fn(&mut Header);
    let edits: [(&str, Edit); 5] = [
        ("extra_data", |h| h.extra_data = Bytes::from(vec![7; 33])),
        ("transactions_root", |h| {
            h.transactions_root = B256::repeat_byte(1)
        }),
        ("gas_used", |h| h.gas_used += 1),
        ("receipts_root", |h| h.receipts_root = B256::repeat_byte(2)),
        ("state_root", |h| h.state_root = B256::repeat_byte(3)),
    ];
    for (what, edit) in edits {
        let mut tampered = block.clone();
        edit(&mut tampered.header);
        let mut rlp = Vec::new();
        tampered.encode(&mut rlp);
        let native = program::validate_block(&rlp, witness, &run.chain);
        assert_eq!(Verdict::of(&native), Verdict::Invalid, "{what}: {native:?}");
        assert_eq!(
            guest(&items(&rlp, witness, &canonical)),
            Err(Verdict::Invalid),
            "{what}"
        );
    }

    // Insufficient: the witness without the pre-state root's node.
    let parent = program::header::decode_ancestors(&witness.headers)
        .unwrap()
        .0;
    let root = parent.last().unwrap().state_root;
    let mut thin = witness.clone();
    thin.state.retain(|n| mpt::keccak256(n) != root);
    assert!(thin.state.len() < witness.state.len());
    let native = program::validate_block(&run.data.block_rlp, &thin, &run.chain);
    assert_eq!(Verdict::of(&native), Verdict::Insufficient, "{native:?}");
    assert_eq!(
        guest(&items(&run.data.block_rlp, &thin, &canonical)),
        Err(Verdict::Insufficient)
    );

    // Unusable: configs that are not canonical, whatever their old digest.
    let mut never = run.chain.canonical();
    never
        .forks
        .insert(0, (EthereumHardfork::Osaka, ForkCondition::Never));
    let mut blobs = run.chain.canonical();
    let mut params = blobs.blob_schedule.last().unwrap().1;
    params.max_blob_count += 3;
    let last = blobs.blob_schedule.last().unwrap().0;
    blobs.blob_schedule.push((last, params));
    for forged in [never, blobs] {
        let forged = items(&run.data.block_rlp, witness, &alloy_rlp::encode(&forged));
        assert!(matches!(
            program::GuestInput::from_items(&forged),
            Err(program::InputError::Chain(_))
        ));
        assert_eq!(guest(&forged), Err(Verdict::Unusable));
    }
}

/// The program a proof commits to holds no path of the machine that built it: the block guest's
/// loaded memory names no home, toolchain, checkout or target directory (panic locations name
/// `index.crates.io-…/name-version/…`, `/rustc/<commit>/…` and workspace-relative paths
/// instead, cargo's `trim-paths`), and a guest built in two different
/// target directories (the usual one and a fresh one) is one program.
#[test]
fn guest_programs_hold_no_build_machine_path_and_are_one_program_anywhere() {
    use prover::guest::{decode_elf, Program};
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let vm = prover::vm::Vm::new(spec.build().unwrap(), spec.public_values()).unwrap();
    let image: Vec<u8> = vm.exe().init_memory.values().copied().collect();
    let contains = |needle: &str| image.windows(needle.len()).any(|w| w == needle.as_bytes());
    // The trimmed names are there (a dependency as `index.crates.io-…/name-version/…`, `std` as
    // `/rustc/<commit>/…`): the search can find paths.
    assert!(contains("index.crates.io-"), "no trimmed dependency path");
    assert!(contains("/rustc/"), "no trimmed std path");
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let workspace = std::fs::canonicalize(workspace).unwrap();
    let mut machine_paths: Vec<String> = vec![workspace.display().to_string()];
    for var in ["HOME", "CARGO_HOME", "RUSTUP_HOME", "CARGO_TARGET_DIR"] {
        if let Some(path) = std::env::var_os(var) {
            machine_paths.push(std::path::PathBuf::from(path).display().to_string());
        }
    }
    machine_paths.push(prover::guest::guest_target_root().display().to_string());
    // As directories (`/root/`, not the `/root` of `alloy-trie/src/root.rs`).
    for path in machine_paths.iter().filter(|p| p.len() > 1) {
        let dir = format!("{}/", path.trim_end_matches('/'));
        assert!(!contains(&dir), "the loaded program names {dir}");
    }

    // A small guest built in the usual target directory and in a fresh one, deeper and under
    // another root (one fresh build: the usual directory's is cached): one program.
    let probe = GuestSpec::program(Program::KeccakAlignment, Keccak::Ours);
    let root = std::env::temp_dir().join(format!("guest-anywhere-{}", std::process::id()));
    let exes: Vec<_> = [None, Some(root.join("fresh/deeper"))]
        .iter()
        .map(|dir| {
            let bytes = match dir {
                Some(dir) => probe.build_bytes_in(dir).unwrap(),
                None => probe.build_bytes().unwrap(),
            };
            let elf = decode_elf(&bytes).unwrap();
            let vm = prover::vm::Vm::new(elf, probe.public_values()).unwrap();
            bitcode::serialize(&(&vm.exe().program, vm.exe().pc_start, &vm.exe().init_memory))
                .unwrap()
        })
        .collect();
    let _ = std::fs::remove_dir_all(&root);
    assert!(exes[0] == exes[1], "two target directories, two programs");
}
