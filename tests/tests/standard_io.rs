//! The standard stateless input (EIP-8025) of real blocks: written by the host, it decodes back
//! to the same block and witness; its request is the block's consensus data (the rebuilt header
//! hashes to the block's hash, so the parent beacon root, the versioned hashes and the requests
//! hash all agree with the block); natively it validates `true` with its chain and schema ids;
//! and each tampering gives `false` for the rule it breaks.

#[path = "standard_io/amsterdam.rs"]
mod amsterdam;
#[path = "standard_io/conventions.rs"]
mod conventions;
#[path = "standard_io/deferred.rs"]
mod deferred;
#[path = "standard_io/mutation.rs"]
mod mutation;
#[path = "standard_io/signers.rs"]
mod signers;

use chaindata::blocks::BlockData;
use program::standard::payload::{block_of, PayloadError};
use program::standard::{validate, validate_input, StandardError};
use program::{ChainConfig, ValidationError, Verdict};
use prover::standard::stateless_input;
use stateless_ssz::NewPayloadRequest::V4;
use stateless_ssz::{decode_input, encode_input, Fork, Sha2Hasher, StatelessInput};
use tests::mainnet_block;

fn devnet() -> (BlockData, ChainConfig) {
    project_block("devnet")
}

/// A block of the project's `blocks/` with its chain.
fn project_block(id: &str) -> (BlockData, ChainConfig) {
    let dir = tests::project_blocks_dir();
    let resolved = host::target::Target::on_disk(&dir, id, None)
        .resolve(Default::default())
        .unwrap();
    (resolved.data, resolved.chain)
}

fn blocks() -> Vec<(BlockData, ChainConfig, Fork)> {
    let (devnet, chain) = devnet();
    let (amsterdam, amsterdam_chain) = project_block("devnet-amsterdam");
    vec![
        (amsterdam, amsterdam_chain, Fork::Amsterdam),
        (mainnet_block(24171384), ChainConfig::mainnet(), Fork::Bpo1),
        (
            mainnet_block(21882667),
            ChainConfig::mainnet(),
            Fork::Cancun,
        ),
        (devnet, chain, Fork::Osaka),
    ]
}

fn input_of(data: &BlockData, chain: &ChainConfig) -> StatelessInput {
    stateless_input(&data.block_rlp, &data.witness, chain)
        .unwrap_or_else(|e| panic!("block {}: {e}", data.id))
}

#[test]
fn real_blocks_round_trip_and_validate() {
    for (data, chain, fork) in blocks() {
        let input = input_of(&data, &chain);
        assert_eq!(input.fork, fork, "block {}", data.id);
        let bytes = encode_input(&input);
        let decoded = decode_input(&bytes).unwrap();
        assert_eq!(decoded, input);
        // The same block: the request rebuilds the header (its hash checked) and the body.
        let block = block_of(&decoded.new_payload_request).unwrap();
        assert_eq!(
            alloy_rlp::encode(&block),
            data.block_rlp,
            "block {}",
            data.id
        );
        // The same witness, item for item (nodes and codes in the order validation first needs
        // them, which the host writes them in).
        let witness = program::standard::witness_of(&decoded);
        let sorted = |items: &[alloy_primitives::Bytes]| {
            let mut items = items.to_vec();
            items.sort();
            items
        };
        assert_eq!(
            sorted(&witness.state),
            sorted(&data.witness.state),
            "block {}",
            data.id
        );
        assert_eq!(
            sorted(&witness.codes),
            sorted(&data.witness.codes),
            "block {}",
            data.id
        );
        assert_eq!(witness.headers, data.witness.headers, "block {}", data.id);
        // The request's consensus data is the block's.
        let header = &data.header;
        match decoded.new_payload_request.blob_context() {
            Some((hashes, beacon)) => {
                assert_eq!(Some(beacon.into()), header.parent_beacon_block_root);
                let blob_txs: usize = block
                    .body
                    .transactions
                    .iter()
                    .map(|tx| {
                        alloy_consensus::Transaction::blob_versioned_hashes(tx)
                            .map_or(0, <[_]>::len)
                    })
                    .sum();
                assert_eq!(hashes.len(), blob_txs);
            }
            None => assert!(header.parent_beacon_block_root.is_none()),
        }
        if let Some(requests) = decoded.new_payload_request.execution_requests() {
            assert_eq!(
                Some(program::standard::payload::requests(&requests).requests_hash()),
                header.requests_hash
            );
        }
        let out = validate(&bytes, &Sha2Hasher);
        assert!(
            out.result.successful_validation,
            "block {}: {:?}",
            data.id,
            out.error()
        );
        assert_eq!(out.result.chain_id, chain.chain_id);
        assert_eq!(out.result.schema_id, fork.schema_id());
        assert_eq!(
            out.result.new_payload_request_root,
            input.request_root(&Sha2Hasher)
        );
        let block_hash = out.outcome.as_ref().unwrap().block_hash;
        assert_eq!(block_hash, header.hash_slow());
        println!(
            "block {}: {} input bytes, {} schema {:#06x}, root 0x{}",
            data.id,
            bytes.len(),
            fork.name(),
            fork.schema_id(),
            alloy_primitives::hex::encode(out.result.new_payload_request_root)
        );
    }
}

fn verdict(input: &StatelessInput) -> (bool, Option<StandardError>) {
    let out = validate_input(input, &Sha2Hasher);
    (out.result.successful_validation, out.error().cloned())
}

#[test]
fn tampered_inputs_validate_false_for_the_rule_they_break() {
    let data = mainnet_block(24171384);
    let input = input_of(&data, &ChainConfig::mainnet());
    assert_eq!(verdict(&input), (true, None));

    // A transaction byte changed: the header rebuilt from the payload no longer hashes to the
    // payload's block hash.
    let mut bad = input.clone();
    if let stateless_ssz::NewPayloadRequest::V4(r) = &mut bad.new_payload_request {
        let mut tx = r.execution_payload.transactions[3].to_vec();
        let last = tx.len() - 1;
        tx[last] ^= 1;
        let mut txs = r.execution_payload.transactions.to_vec();
        txs[3] = tx.into();
        r.execution_payload.transactions = txs.into();
    }
    let (ok, error) = verdict(&bad);
    assert!(!ok);
    let block_hash = data.header.hash_slow();
    assert!(
        matches!(
            error,
            Some(StandardError::Payload(PayloadError::BlockHash { claimed, computed }))
                if claimed == block_hash && computed != block_hash
        ),
        "{error:?}"
    );

    // A versioned hash where the block carries no blob.
    let mut bad = input.clone();
    if let V4(r) = &mut bad.new_payload_request {
        assert!(r.versioned_hashes.is_empty(), "24171384 carries no blob");
        r.versioned_hashes = vec![[1u8; 32]].into();
    }
    assert_eq!(
        verdict(&bad),
        (
            false,
            Some(StandardError::Payload(PayloadError::VersionedHashes {
                given: 1,
                found: 0
            }))
        )
    );

    // Two public keys swapped: each fails its transaction's signature.
    let mut bad = input.clone();
    let mut keys = bad.public_keys.to_vec();
    keys.swap(0, 1);
    bad.public_keys = keys.into();
    let (ok, error) = verdict(&bad);
    assert!(!ok);
    assert!(
        matches!(
            error,
            Some(StandardError::Validation(ValidationError::PublicKey {
                index: 0,
                ..
            }))
        ),
        "{error:?}"
    );

    // One key missing.
    let mut bad = input.clone();
    let mut keys = bad.public_keys.to_vec();
    keys.pop();
    bad.public_keys = keys.into();
    let txs = input.public_keys.len();
    assert_eq!(
        verdict(&bad),
        (
            false,
            Some(StandardError::Validation(ValidationError::PublicKeyCount {
                keys: txs - 1,
                txs
            }))
        )
    );

    // A chain this guest does not know.
    let mut bad = input.clone();
    bad.chain_id = 424242;
    let (ok, error) = verdict(&bad);
    assert!(!ok);
    assert_eq!(error, Some(StandardError::UnknownChain(424242)));
    assert_eq!(error.unwrap().verdict(), Verdict::Unusable);

    // The state root claimed by the payload changed: the block hash no longer matches either
    // (it is the header's), so a prover cannot claim another post-state.
    let mut bad = input.clone();
    if let stateless_ssz::NewPayloadRequest::V4(r) = &mut bad.new_payload_request {
        r.execution_payload.state_root[0] ^= 1;
    }
    assert!(
        matches!(
            verdict(&bad).1,
            Some(StandardError::Payload(PayloadError::BlockHash { claimed, .. }))
                if claimed == block_hash
        ),
        "{:?}",
        verdict(&bad).1
    );

    // A trie node missing (the first the validation needs: the pre-state root's): false, and
    // the finer verdict says the witness is insufficient, naming the node.
    let mut bad = input.clone();
    let mut state = bad.witness.state.to_vec();
    let first = state.remove(0);
    bad.witness.state = state.into();
    let (ok, error) = verdict(&bad);
    assert!(!ok);
    let error = error.unwrap();
    assert_eq!(error.verdict(), Verdict::Insufficient);
    let missing = alloy_primitives::keccak256(&first[..]).to_string();
    assert!(error.to_string().contains(&missing), "{error}");

    // Another fork's schema over the same request (Osaka instead of BPO1): BPO1's blob schedule
    // no longer applies, and the block's excess blob gas no longer follows from its parent's.
    let mut bad = input.clone();
    bad.fork = Fork::Osaka;
    let out = validate_input(&bad, &Sha2Hasher);
    assert_eq!(out.result.schema_id, Fork::Osaka.schema_id());
    assert!(!out.result.successful_validation);
    assert!(
        matches!(
            out.error(),
            Some(StandardError::Validation(ValidationError::HeaderField { field, .. }))
                if field.contains("blob")
        ),
        "{:?}",
        out.error()
    );
}

/// 21882667 (Cancun) carries 4 blob transactions: one of their versioned hashes changed in the
/// request, or one more listed, is not what the transactions carry.
#[test]
fn a_tampered_versioned_hash_is_refused() {
    use stateless_ssz::NewPayloadRequest::V3;
    let input = input_of(&mainnet_block(21882667), &ChainConfig::mainnet());
    let V3(request) = &input.new_payload_request else {
        panic!("a Cancun block's request is V3")
    };
    let hashes = request.versioned_hashes.to_vec();
    assert!(hashes.len() >= 4, "{}", hashes.len());
    let with = |hashes: Vec<[u8; 32]>| {
        let mut bad = input.clone();
        if let V3(r) = &mut bad.new_payload_request {
            r.versioned_hashes = hashes.into();
        }
        verdict(&bad)
    };
    let n = hashes.len();
    let mut changed = hashes.clone();
    changed[n - 1][31] ^= 1;
    let refused = |given| {
        (
            false,
            Some(StandardError::Payload(PayloadError::VersionedHashes {
                given,
                found: n,
            })),
        )
    };
    assert_eq!(with(changed), refused(n));
    let mut swapped = hashes.clone();
    swapped.swap(0, n - 1);
    if swapped != hashes {
        assert_eq!(with(swapped), refused(n));
    }
    let mut more = hashes.clone();
    more.push(hashes[0]);
    assert_eq!(with(more), refused(n + 1));
    assert_eq!(with(hashes), (true, None));
}

#[test]
fn undecodable_input_gives_43_zero_bytes() {
    for bytes in [
        &b""[..],
        &[0x12],
        &[0x15, 0x01, 0, 0],
        &[0x12, 0x01, 1, 2, 3],
    ] {
        let out = validate(bytes, &Sha2Hasher);
        assert_eq!(out.result.to_bytes(), [0u8; 43]);
        assert!(matches!(out.error(), Some(StandardError::Decode(_))));
    }
}

/// The standard guest in the VM: the devnet block's input reveals `true` (in need order and
/// shuffled), the same block with a public key swapped `false` (the guest ends normally, so the run has public values), and
/// bytes that do not decode 43 zero bytes; each result then zero bytes, equal to the native
/// run's.
#[test]
fn the_standard_guest_reveals_the_native_result_in_the_vm() {
    use prover::guest::{GuestSpec, Keccak, Program};
    use prover::standard::result_of_public;
    let (data, chain) = devnet();
    let input = input_of(&data, &chain);
    let mut swapped = input.clone();
    let mut keys = swapped.public_keys.to_vec();
    keys.swap(0, 1);
    swapped.public_keys = keys.into();
    let spec = GuestSpec::program(Program::Standard, Keccak::Ours);
    let vm = prover::vm::Vm::new(spec.build().unwrap(), spec.public_values()).unwrap();
    // In another producer's order: validated again in the VM over what it read.
    let shuffled = prover::standard::shuffled(&input, 8025);
    for (what, bytes, valid) in [
        ("devnet", encode_input(&input), true),
        ("devnet, shuffled", encode_input(&shuffled), true),
        ("devnet, keys swapped", encode_input(&swapped), false),
        ("undecodable", vec![0x12, 0x01, 7], false),
    ] {
        let native = validate(&bytes, &Sha2Hasher).result;
        let public = vm.execute(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(public.len(), 64, "{what}");
        let result = result_of_public(&public).unwrap_or_else(|| panic!("{what}: {public:?}"));
        assert_eq!(result, native, "{what}");
        assert_eq!(result.successful_validation, valid, "{what}");
        println!("{what}: 0x{}", alloy_primitives::hex::encode(&public[..43]));
    }
}
