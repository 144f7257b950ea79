//! `stateless-ssz`'s containers against an independent implementation: Lighthouse's SSZ
//! (`ethereum_ssz`, `tree_hash`, `ssz_types`) for what it has (containers, bounded lists, byte
//! vectors), and for what it lacks (EIP-7916 progressive lists, EIP-7495 progressive containers)
//! the EIPs' own definitions written out below over `tree_hash`'s binary merkleization.

mod support;

use libssz::SszEncode;
use libssz_merkle::HashTreeRoot;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use sha2::{Digest, Sha256};
use ssz_derive::{Decode, Encode};
use ssz_types::{typenum, FixedVector, VariableList};
use stateless_ssz::*;
use support::{bytes, payload};
use tree_hash::TreeHash;
use tree_hash_derive::TreeHash;

const H: Sha2Hasher = Sha2Hasher;

fn fv<N: typenum::Unsigned>(b: &[u8]) -> FixedVector<u8, N> {
    FixedVector::new(b.to_vec()).unwrap()
}

#[derive(Encode, Decode, TreeHash)]
struct LhWithdrawal {
    index: u64,
    validator_index: u64,
    address: FixedVector<u8, typenum::U20>,
    amount: u64,
}

#[derive(Encode, Decode, TreeHash)]
struct LhDeposit {
    pubkey: FixedVector<u8, typenum::U48>,
    withdrawal_credentials: FixedVector<u8, typenum::U32>,
    amount: u64,
    signature: FixedVector<u8, typenum::U96>,
    index: u64,
}

#[derive(Encode, Decode, TreeHash)]
struct LhResult {
    root: FixedVector<u8, typenum::U32>,
    ok: bool,
    chain_id: u64,
    schema_id: u16,
}

type LhHeaders = VariableList<VariableList<u8, typenum::U1024>, typenum::U256>;

#[test]
fn containers_and_bounded_lists_match_lighthouse() {
    let mut rng = SmallRng::seed_from_u64(8025);
    for _ in 0..50 {
        let w = Withdrawal {
            index: rng.random(),
            validator_index: rng.random(),
            address: bytes(&mut rng),
            amount: rng.random(),
        };
        let lh = LhWithdrawal {
            index: w.index,
            validator_index: w.validator_index,
            address: fv(&w.address),
            amount: w.amount,
        };
        assert_eq!(w.to_ssz(), ssz::Encode::as_ssz_bytes(&lh));
        assert_eq!(w.hash_tree_root(&H), lh.tree_hash_root().0);

        let d = DepositRequest {
            pubkey: bytes(&mut rng),
            withdrawal_credentials: bytes(&mut rng),
            amount: rng.random(),
            signature: bytes(&mut rng),
            index: rng.random(),
        };
        let lh = LhDeposit {
            pubkey: fv(&d.pubkey),
            withdrawal_credentials: fv(&d.withdrawal_credentials),
            amount: d.amount,
            signature: fv(&d.signature),
            index: d.index,
        };
        assert_eq!(d.to_ssz(), ssz::Encode::as_ssz_bytes(&lh));
        assert_eq!(d.hash_tree_root(&H), lh.tree_hash_root().0);

        let r = StatelessValidationResult {
            new_payload_request_root: bytes(&mut rng),
            successful_validation: rng.random(),
            chain_id: rng.random(),
            schema_id: rng.random(),
        };
        let lh = LhResult {
            root: fv(&r.new_payload_request_root),
            ok: r.successful_validation,
            chain_id: r.chain_id,
            schema_id: r.schema_id,
        };
        let encoded = ssz::Encode::as_ssz_bytes(&lh);
        assert_eq!(encoded.len(), RESULT_BYTES);
        assert_eq!(r.to_bytes().to_vec(), encoded);
        assert_eq!(r.to_ssz(), encoded);
        assert_eq!(StatelessValidationResult::from_bytes(&encoded), Some(r));

        // The witness's headers: List[ByteList[1024], 256].
        let headers: Vec<Vec<u8>> = (0..rng.random_range(0..5))
            .map(|_| {
                (0..rng.random_range(0..1024))
                    .map(|_| rng.random())
                    .collect()
            })
            .collect();
        let ours: ssz_list_of_headers::Headers = headers
            .iter()
            .map(|h| h.clone().try_into().unwrap())
            .collect::<Vec<_>>()
            .try_into()
            .unwrap();
        let lh: LhHeaders = headers
            .iter()
            .map(|h| VariableList::new(h.clone()).unwrap())
            .collect::<Vec<_>>()
            .try_into()
            .unwrap();
        assert_eq!(ours.to_ssz(), ssz::Encode::as_ssz_bytes(&lh));
        assert_eq!(ours.hash_tree_root(&H), lh.tree_hash_root().0);
    }
    assert_eq!(StatelessValidationResult::UNDECODABLE.to_bytes(), [0u8; 43]);
}

mod ssz_list_of_headers {
    pub type Headers = libssz_types::SszList<
        stateless_ssz::ByteList<{ stateless_ssz::MAX_BYTES_PER_HEADER }>,
        { stateless_ssz::MAX_WITNESS_HEADERS },
    >;
}

// ---- EIP-7916 and EIP-7495, as the EIPs define them ----

fn sha(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(a);
    h.update(b);
    h.finalize().into()
}

/// `merkleize(chunks, limit)` of the SSZ spec, by `tree_hash`.
fn merkleize(chunks: &[[u8; 32]], limit: usize) -> [u8; 32] {
    let flat: Vec<u8> = chunks.concat();
    tree_hash::merkle_root(&flat, limit).0
}

/// EIP-7916: `merkleize_progressive(chunks, num_leaves=1)` as the consensus specs state it
/// now: `hash(a, b)` with `a` the first `num_leaves` chunks as a binary tree and `b` the
/// rest, recursively (an earlier draft had the two children the other way round).
fn merkleize_progressive(chunks: &[[u8; 32]], num_leaves: usize) -> [u8; 32] {
    if chunks.is_empty() {
        return [0; 32];
    }
    let here = &chunks[..chunks.len().min(num_leaves)];
    let rest = &chunks[here.len()..];
    sha(
        &merkleize(here, num_leaves),
        &merkleize_progressive(rest, num_leaves * 4),
    )
}

fn mix_in_length(root: [u8; 32], len: usize) -> [u8; 32] {
    let mut n = [0u8; 32];
    n[..8].copy_from_slice(&(len as u64).to_le_bytes());
    sha(&root, &n)
}

fn pack(bytes: &[u8]) -> Vec<[u8; 32]> {
    bytes
        .chunks(32)
        .map(|c| {
            let mut n = [0u8; 32];
            n[..c.len()].copy_from_slice(c);
            n
        })
        .collect()
}

/// EIP-7916 `ProgressiveList` of composite elements with roots `roots`.
fn progressive_list(roots: &[[u8; 32]]) -> [u8; 32] {
    mix_in_length(merkleize_progressive(roots, 1), roots.len())
}

/// EIP-7916 `ProgressiveByteList`.
fn progressive_bytes(bytes: &[u8]) -> [u8; 32] {
    mix_in_length(merkleize_progressive(&pack(bytes), 1), bytes.len())
}

/// EIP-7495 `ProgressiveContainer` with every field active.
fn progressive_container(fields: &[[u8; 32]]) -> [u8; 32] {
    let mut bits = [0u8; 32];
    for i in 0..fields.len() {
        bits[i / 8] |= 1 << (i % 8);
    }
    sha(&merkleize_progressive(fields, 1), &bits)
}

fn uint(v: u64) -> [u8; 32] {
    let mut n = [0u8; 32];
    n[..8].copy_from_slice(&v.to_le_bytes());
    n
}

fn payload_root(p: &ExecutionPayloadV3) -> [u8; 32] {
    let txs: Vec<[u8; 32]> = p
        .transactions
        .iter()
        .map(|t| progressive_bytes(t))
        .collect();
    let ws: Vec<[u8; 32]> = p
        .withdrawals
        .iter()
        .map(|w| {
            LhWithdrawal {
                index: w.index,
                validator_index: w.validator_index,
                address: fv(&w.address),
                amount: w.amount,
            }
            .tree_hash_root()
            .0
        })
        .collect();
    let extra = VariableList::<u8, typenum::U32>::new(p.extra_data.to_vec()).unwrap();
    let bloom = FixedVector::<u8, typenum::U256>::new(p.logs_bloom.to_vec()).unwrap();
    let mut address = [0u8; 32];
    address[..20].copy_from_slice(&p.fee_recipient);
    progressive_container(&[
        p.parent_hash,
        address,
        p.state_root,
        p.receipts_root,
        bloom.tree_hash_root().0,
        p.prev_randao,
        uint(p.block_number),
        uint(p.gas_limit),
        uint(p.gas_used),
        uint(p.timestamp),
        extra.tree_hash_root().0,
        p.base_fee_per_gas,
        p.block_hash,
        progressive_list(&txs),
        progressive_list(&ws),
        uint(p.blob_gas_used),
        uint(p.excess_blob_gas),
    ])
}

#[test]
fn progressive_lists_and_containers_match_the_eips() {
    let mut rng = SmallRng::seed_from_u64(7916);
    // Sizes across the progressive subtrees' boundaries (1, 4, 16, 64 leaves).
    for (txs, withdrawals) in [(0, 0), (1, 1), (2, 5), (5, 16), (22, 21), (86, 0)] {
        let p = payload(&mut rng, txs, 299, withdrawals);
        assert_eq!(
            p.hash_tree_root(&H),
            payload_root(&p),
            "{txs} txs, {withdrawals} withdrawals"
        );
        let hashes: Vec<[u8; 32]> = (0..txs % 7).map(|_| bytes(&mut rng)).collect();
        let deposits: Vec<DepositRequest> = (0..withdrawals % 3)
            .map(|_| DepositRequest {
                pubkey: bytes(&mut rng),
                withdrawal_credentials: bytes(&mut rng),
                amount: rng.random(),
                signature: bytes(&mut rng),
                index: rng.random(),
            })
            .collect();
        let request = NewPayloadRequestV4 {
            execution_payload: p.clone(),
            versioned_hashes: hashes.clone().into(),
            parent_beacon_block_root: bytes(&mut rng),
            execution_requests: ExecutionRequests {
                deposits: deposits.clone().into(),
                withdrawals: Default::default(),
                consolidations: Default::default(),
            },
        };
        let deposit_roots: Vec<[u8; 32]> = deposits
            .iter()
            .map(|d| {
                LhDeposit {
                    pubkey: fv(&d.pubkey),
                    withdrawal_credentials: fv(&d.withdrawal_credentials),
                    amount: d.amount,
                    signature: fv(&d.signature),
                    index: d.index,
                }
                .tree_hash_root()
                .0
            })
            .collect();
        let requests = progressive_container(&[
            progressive_list(&deposit_roots),
            progressive_list(&[]),
            progressive_list(&[]),
        ]);
        // NewPayloadRequest is a plain container of four fields.
        let expected = merkleize(
            &[
                payload_root(&p),
                progressive_list(&hashes),
                request.parent_beacon_block_root,
                requests,
            ],
            4,
        );
        assert_eq!(request.hash_tree_root(&H), expected);
        // Public keys: ByteVector[65] elements are composite (three chunks each).
        let keys: Vec<[u8; 65]> = (0..txs % 5).map(|_| bytes(&mut rng)).collect();
        let ours: libssz_types::ProgressiveList<[u8; 65]> = keys.clone().into();
        let roots: Vec<[u8; 32]> = keys.iter().map(|k| merkleize(&pack(k), 3)).collect();
        assert_eq!(ours.hash_tree_root(&H), progressive_list(&roots));
    }
}

#[test]
fn byte_lists_root_as_the_eip_and_libssz_root_them() {
    use libssz::SszDecode;
    let mut rng = SmallRng::seed_from_u64(2718);
    // Every length to past the third subtree's end (1 + 4 + 16 chunks = 672 bytes) and across
    // the fourth's and fifth's (2,720 and 10,912 bytes), then lengths of large transactions.
    let lengths = (0..=800)
        .chain(2_650..2_790)
        .chain(10_850..10_980)
        .chain((0..24).map(|k| 11_000 + k * 5_471));
    for len in lengths {
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let ours = ProgressiveByteList::from(bytes.clone());
        let theirs = libssz_types::ProgressiveList::<u8>::from(bytes.clone());
        let root = ours.hash_tree_root(&H);
        assert_eq!(
            root,
            progressive_bytes(&bytes),
            "{len} bytes, the EIP's root"
        );
        assert_eq!(
            root,
            theirs.hash_tree_root(&H),
            "{len} bytes, libssz's root"
        );
        // Serialized and read back as libssz's list is.
        assert_eq!(ours.to_ssz(), theirs.to_ssz(), "{len} bytes");
        assert_eq!(
            ProgressiveByteList::from_ssz_bytes(&bytes).unwrap(),
            ours,
            "{len} bytes"
        );
    }
}
