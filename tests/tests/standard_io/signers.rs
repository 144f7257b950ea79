//! A standard input's public keys must be exactly the signers' (`program::body::verify_senders`).
//!
//! Every signature verifies under two keys: its signer's `Q_v` and the other recovery
//! candidate `Q_(1-v)`, whose private key the signer also knows. A verifier that only checked
//! the signature against the given key would let a prover execute a block as the other
//! candidate's address. Here that block is built (the signer unfunded, the other candidate
//! funded, the header sealed with the state of executing as the other candidate) and must be
//! `false` natively and in the VM; random signatures of every transaction kind (legacy v 27/28,
//! EIP-155 v, typed) refuse their other candidate, other transactions' keys and the point at
//! infinity.

use std::collections::BTreeMap;

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::{Decodable2718, Encodable2718};
use alloy_primitives::{keccak256, Address, Signature, TxKind, U256};
use blockgen::{seal_as, seal_as_listed, signed, Devnet, Fork, GAS_LIMIT};
use chaindata::fixtures::GenesisAccount;
use k256::ecdsa::signature::hazmat::PrehashVerifier;
use k256::ecdsa::{RecoveryId, SigningKey, VerifyingKey};
use program::body::verify_senders;
use program::standard::StandardError;
use program::ValidationError;
use rand::{Rng, SeedableRng};
use stateless_ssz::{encode_input, Sha2Hasher};

const GWEI: u128 = 1_000_000_000;

fn sec1(key: &VerifyingKey) -> [u8; 65] {
    key.to_encoded_point(false).as_bytes().try_into().unwrap()
}

fn k256_signature(signature: &Signature) -> k256::ecdsa::Signature {
    k256::ecdsa::Signature::from_scalars(
        signature.r().to_be_bytes::<32>(),
        signature.s().to_be_bytes::<32>(),
    )
    .unwrap()
}

/// The key the flipped y-parity recovers: the signature's other candidate. Asserted to verify
/// the signature, so that refusing it is the parity's doing, not a failed verification.
fn other_candidate(tx: &TxEnvelope) -> VerifyingKey {
    let signature = tx.signature();
    let sig = k256_signature(signature);
    let hash = tx.signature_hash();
    let other =
        VerifyingKey::recover_from_prehash(&hash[..], &sig, RecoveryId::new(!signature.v(), false))
            .unwrap();
    other.verify_prehash(&hash[..], &sig).unwrap();
    other
}

/// `tx` signed by `key`, through its 2718 encoding and back (so `v` is decoded as a block
/// carries it).
fn sign<T>(tx: T, key: &SigningKey) -> TxEnvelope
where
    T: SignableTransaction<Signature>,
    TxEnvelope: From<alloy_consensus::Signed<T>>,
{
    let tx: TxEnvelope = signed(tx, key).into();
    TxEnvelope::decode_2718(&mut tx.encoded_2718().as_slice()).unwrap()
}

fn refused(txs: &[TxEnvelope], keys: &[[u8; 65]]) -> ValidationError {
    verify_senders(txs, keys).map(|_| ()).unwrap_err()
}

/// The forged block: A signs, B (A's signature's other candidate) is funded and the header is
/// sealed with the state of executing as B. The block guest recovers A (no funds); given B's
/// key, the standard guest must refuse it rather than execute as B.
fn forged_block() -> (Devnet, Vec<u8>, VerifyingKey, VerifyingKey) {
    let a = SigningKey::from_slice(keccak256("signers: the unfunded signer").as_slice()).unwrap();
    let chain_id = Devnet::new().unwrap().chain.chain_id;
    let tx = sign(
        TxEip1559 {
            chain_id,
            nonce: 0,
            gas_limit: 21_000,
            max_fee_per_gas: 10 * GWEI,
            max_priority_fee_per_gas: GWEI,
            to: TxKind::Call(Address::repeat_byte(0x5e)),
            value: U256::from(10u64).pow(U256::from(18)),
            ..Default::default()
        },
        &a,
    );
    let b = other_candidate(&tx);
    let b_address = Address::from_public_key(&b);
    let funded = GenesisAccount {
        balance: U256::from(100u64) * U256::from(10u64).pow(U256::from(18)),
        ..Default::default()
    };
    let devnet = Devnet::with(
        BTreeMap::from([(b_address, funded)]),
        GAS_LIMIT,
        Fork::Osaka,
    )
    .unwrap();
    let (block, succeeded) = seal_as(&devnet, vec![tx], Vec::new(), &[b_address]).unwrap();
    assert_eq!(succeeded, [true], "the transfer succeeds as B");
    (devnet, alloy_rlp::encode(&block), *a.verifying_key(), b)
}

/// The forged block's standard input bytes with `key` as its one public key.
fn forged_input(devnet: &Devnet, block_rlp: &[u8], key: &VerifyingKey) -> Vec<u8> {
    listed_input(devnet, block_rlp, None, vec![sec1(key)])
}

/// A block's standard input bytes with `keys` as its public keys and `access_list` (from
/// Amsterdam on) in its payload.
fn listed_input(
    devnet: &Devnet,
    block_rlp: &[u8],
    access_list: Option<&[alloy_eips::eip7928::AccountChanges]>,
    keys: Vec<[u8; 65]>,
) -> Vec<u8> {
    let mut input = prover::standard::stateless_input_with(
        block_rlp,
        &devnet.witness,
        &devnet.chain,
        prover::standard::Produced {
            requests: &Default::default(),
            access_list,
        },
        // Lenient: the zero-key forgery's signature recovers no key (its keys are replaced).
        true,
    )
    .unwrap();
    input.public_keys = keys.into();
    encode_input(&input)
}

#[test]
fn the_other_candidates_key_cannot_make_a_forged_block_valid() {
    let (devnet, block_rlp, a, b) = forged_block();
    let (a_address, b_address) = (Address::from_public_key(&a), Address::from_public_key(&b));

    // The block guest recovers A, who cannot pay.
    let error = program::validate_block(&block_rlp, &devnet.witness, &devnet.chain).unwrap_err();
    assert!(matches!(error, ValidationError::Execution(_)), "{error}");

    // The standard guest: with A's key the same verdict; with B's, the key is refused.
    let honest = program::standard::validate(&forged_input(&devnet, &block_rlp, &a), &Sha2Hasher);
    assert!(!honest.result.successful_validation);
    assert!(
        matches!(
            honest.error(),
            Some(StandardError::Validation(ValidationError::Execution(_)))
        ),
        "{:?}",
        honest.error()
    );
    let forged = program::standard::validate(&forged_input(&devnet, &block_rlp, &b), &Sha2Hasher);
    assert!(!forged.result.successful_validation);
    assert_eq!(
        forged.error(),
        Some(&StandardError::Validation(ValidationError::PublicKey {
            index: 0,
            signer: a_address,
            given: b_address,
        }))
    );
    // One payload: the two inputs commit to the same request.
    assert_eq!(
        honest.result.new_payload_request_root,
        forged.result.new_payload_request_root
    );
}

#[test]
fn the_other_candidates_key_is_refused_in_the_vm() {
    use prover::guest::{GuestSpec, Keccak, Program};
    let (devnet, block_rlp, _, b) = forged_block();
    let bytes = forged_input(&devnet, &block_rlp, &b);
    let spec = GuestSpec::program(Program::Standard, Keccak::Ours);
    // `run_standard` checks the VM's result is the native run's.
    let run = prover::standard::run_standard(&bytes, Some(spec)).unwrap_or_else(|e| panic!("{e}"));
    let (result, _) = run.vm.expect("the VM ran");
    assert!(!result.successful_validation);
    assert!(matches!(
        run.native.error(),
        Some(StandardError::Validation(ValidationError::PublicKey {
            index: 0,
            ..
        }))
    ));
}

#[test]
fn random_signatures_refuse_their_other_candidate() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5167_4e45);
    let mut parities = [0usize; 2];
    let mut kinds = [0usize; 3];
    for round in 0..96 {
        let key = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let to = TxKind::Call(Address::from(rng.random::<[u8; 20]>()));
        let nonce = rng.random_range(0..1000);
        let kind = round % 3;
        kinds[kind] += 1;
        let tx = match kind {
            // Legacy before EIP-155 (v = 27 or 28) and with it (v = 2·chain_id + 35 + parity).
            0 | 1 => sign(
                TxLegacy {
                    chain_id: (kind == 1).then_some(1),
                    nonce,
                    gas_price: 2 * GWEI,
                    gas_limit: 21_000,
                    to,
                    value: U256::from(rng.random::<u64>()),
                    input: Default::default(),
                },
                &key,
            ),
            _ => sign(
                TxEip1559 {
                    chain_id: 1,
                    nonce,
                    gas_limit: 21_000,
                    max_fee_per_gas: 10 * GWEI,
                    max_priority_fee_per_gas: GWEI,
                    to,
                    ..Default::default()
                },
                &key,
            ),
        };
        if let TxEnvelope::Legacy(legacy) = &tx {
            assert_eq!(legacy.tx().chain_id, (kind == 1).then_some(1));
        }
        parities[tx.signature().v() as usize] += 1;
        let signer = Address::from_public_key(key.verifying_key());
        let txs = [tx];
        let senders = verify_senders(&txs, &[sec1(key.verifying_key())]).unwrap();
        assert_eq!(senders[0].signer(), signer);
        let other = other_candidate(&txs[0]);
        assert_eq!(
            refused(&txs, &[sec1(&other)]),
            ValidationError::PublicKey {
                index: 0,
                signer,
                given: Address::from_public_key(&other),
            },
            "round {round}"
        );
    }
    assert!(parities.iter().all(|&n| n > 10), "{parities:?}");
    assert_eq!(kinds, [32, 32, 32]);
}

#[test]
fn keys_of_other_transactions_and_non_keys_are_refused() {
    let keys: Vec<SigningKey> = (0..3)
        .map(|i| SigningKey::from_slice(keccak256(format!("signers: key {i}")).as_slice()).unwrap())
        .collect();
    let txs: Vec<TxEnvelope> = keys
        .iter()
        .map(|key| {
            sign(
                TxEip1559 {
                    chain_id: 1,
                    gas_limit: 21_000,
                    max_fee_per_gas: 10 * GWEI,
                    to: TxKind::Call(Address::ZERO),
                    ..Default::default()
                },
                key,
            )
        })
        .collect();
    let right: Vec<[u8; 65]> = keys.iter().map(|k| sec1(k.verifying_key())).collect();
    let addresses: Vec<Address> = keys
        .iter()
        .map(|k| Address::from_public_key(k.verifying_key()))
        .collect();
    assert_eq!(verify_senders(&txs, &right).unwrap().len(), 3);

    // Rotated: transaction 0 gets transaction 1's key.
    let rotated = [right[1], right[2], right[0]];
    assert_eq!(
        refused(&txs, &rotated),
        ValidationError::PublicKey {
            index: 0,
            signer: addresses[0],
            given: addresses[1],
        }
    );
    // The point at infinity, as 65 bytes under either prefix.
    let mut infinity = [0u8; 65];
    infinity[0] = 0x04;
    let keys = [right[0], infinity, right[2]];
    assert!(
        matches!(refused(&txs, &keys), ValidationError::PublicKey { index: 1, signer, .. } if signer == addresses[1])
    );
    let keys = [right[0], right[1], [0u8; 65]];
    assert_eq!(
        refused(&txs, &keys),
        ValidationError::PublicKeyPrefix {
            index: 2,
            prefix: 0
        }
    );
    // The right key compressed into the uncompressed form's length.
    let mut compressed = right[2];
    compressed[0] = 0x02 | (right[2][64] & 1);
    let keys = [right[0], right[1], compressed];
    assert_eq!(
        refused(&txs, &keys),
        ValidationError::PublicKeyPrefix {
            index: 2,
            prefix: compressed[0]
        }
    );
}

/// The key 0x04 ‖ 0^64, and the address a guest that took it for a point would credit:
/// keccak(0^64)[12..].
const ZERO_KEY: [u8; 65] = {
    let mut key = [0u8; 65];
    key[0] = 0x04;
    key
};

/// Issue 51's forgery, on an Amsterdam devnet: keccak(0^64)[12..] is funded, and a 99 ETH
/// transfer "from" it is signed with R = (z/s)·G, r = R.x, v = R.y's parity, which verifies
/// under the point at infinity (OpenVM's `from_xy(0, 0)`). The header is sealed with the state
/// of executing as that address.
fn zero_key_block() -> (Devnet, Vec<u8>, Vec<u8>) {
    use k256::elliptic_curve::ops::Reduce;
    use k256::elliptic_curve::point::AffineCoordinates;
    use k256::{ProjectivePoint, Scalar};
    let keyless = Address::from_slice(&keccak256([0u8; 64])[12..]);
    assert_eq!(
        keyless,
        "0x3f17f1962B36e491b30A40b2405849e597Ba5FB5"
            .parse::<Address>()
            .unwrap()
    );
    let funded = GenesisAccount {
        balance: U256::from(100u64) * U256::from(10u64).pow(U256::from(18)),
        ..Default::default()
    };
    // The recipient exists, so the transfer creates no account.
    let recipient = GenesisAccount {
        balance: U256::from(1u64),
        ..Default::default()
    };
    let devnet = Devnet::with(
        BTreeMap::from([(keyless, funded), (Address::repeat_byte(0x5e), recipient)]),
        GAS_LIMIT,
        Fork::Amsterdam,
    )
    .unwrap();
    let tx = TxEip1559 {
        chain_id: devnet.chain.chain_id,
        nonce: 0,
        gas_limit: 100_000,
        max_fee_per_gas: 10 * GWEI,
        max_priority_fee_per_gas: GWEI,
        to: TxKind::Call(Address::repeat_byte(0x5e)),
        value: U256::from(99u64) * U256::from(10u64).pow(U256::from(18)),
        ..Default::default()
    };
    let z = <Scalar as Reduce<k256::U256>>::reduce_bytes(&tx.signature_hash().0.into());
    // A fixed low s.
    let s = Scalar::from(0x5e_u64 << 32 | 0x1234);
    let big_r = (ProjectivePoint::GENERATOR * (z * s.invert().unwrap())).to_affine();
    let signature = Signature::new(
        U256::from_be_slice(&big_r.x()),
        U256::from_be_slice(&s.to_bytes()),
        bool::from(big_r.y_is_odd()),
    );
    let tx: TxEnvelope = tx.into_signed(signature).into();
    let tx = TxEnvelope::decode_2718(&mut tx.encoded_2718().as_slice()).unwrap();
    let (block, succeeded, list) =
        seal_as_listed(&devnet, vec![tx], Vec::new(), &[keyless]).unwrap();
    assert_eq!(
        succeeded,
        [true],
        "the transfer succeeds as the keyless address"
    );
    let block_rlp = alloy_rlp::encode(&block);
    let input = listed_input(&devnet, &block_rlp, list.as_deref(), vec![ZERO_KEY]);
    (devnet, block_rlp, input)
}

#[test]
fn the_zero_key_cannot_make_a_forged_block_valid() {
    let (devnet, block_rlp, input) = zero_key_block();
    // The block guest recovers no sender.
    let error = program::validate_block(&block_rlp, &devnet.witness, &devnet.chain).unwrap_err();
    assert!(
        matches!(error, ValidationError::SenderRecovery { index: 0, .. }),
        "{error}"
    );
    let run = program::standard::validate(&input, &Sha2Hasher);
    assert!(!run.result.successful_validation);
    assert!(
        matches!(
            run.error(),
            Some(StandardError::Validation(ValidationError::SenderRecovery {
                index: 0,
                ..
            }))
        ),
        "{:?}",
        run.error()
    );
}

/// In the VM, where the check runs on the chips: `false`, as natively (on 009318e the VM said
/// `true` and `run_standard` refused the disagreement).
#[test]
fn the_zero_key_is_refused_in_the_vm() {
    use prover::guest::{GuestSpec, Keccak, Program};
    let (_, _, bytes) = zero_key_block();
    let spec = GuestSpec::program(Program::Standard, Keccak::Ours);
    let run = prover::standard::run_standard(&bytes, Some(spec)).unwrap_or_else(|e| panic!("{e}"));
    let (result, _) = run.vm.expect("the VM ran");
    assert!(!result.successful_validation);
    assert!(matches!(
        run.native.error(),
        Some(StandardError::Validation(ValidationError::SenderRecovery {
            index: 0,
            ..
        }))
    ));
}
