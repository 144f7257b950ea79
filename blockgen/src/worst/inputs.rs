//! Valid inputs for every precompile the worst-case blocks call.
//!
//! A worst case must make the precompile do its full work: a call that fails is charged all the
//! gas it was given and does little. So each input here is valid (the generator runs it through
//! revm's own precompile before use, and the contract stops the transaction with `INVALID` if a
//! call ever fails). The curve points are the groups' generators, the signatures are real
//! ones from fixed keys, and the KZG proof opens the zero polynomial (commitment and proof at
//! infinity), which is a valid opening at any point.

use alloy_primitives::{keccak256, U256};
use revm::precompile::{PrecompileSpecId, Precompiles};

use super::{Fork, WorstError};

/// A precompile's address from its number.
pub fn address(number: u16) -> alloy_primitives::Address {
    alloy_primitives::Address::left_padding_from(&number.to_be_bytes())
}

/// The gas `input` costs at precompile `number` under `fork` and what it returns, run by revm's
/// own precompile; an error if the precompile does not exist there or refuses the input.
pub fn call(fork: Fork, number: u16, input: &[u8]) -> Result<(u64, Vec<u8>), WorstError> {
    let spec = match fork {
        Fork::Prague => PrecompileSpecId::PRAGUE,
        // Amsterdam changes no precompile (revm maps it to Osaka's set).
        Fork::Osaka | Fork::Amsterdam => PrecompileSpecId::OSAKA,
    };
    let precompile = Precompiles::new(spec)
        .get(&address(number))
        .ok_or(WorstError::NoPrecompile { number, fork })?;
    match precompile.execute(input, u64::MAX / 2, 0) {
        Ok(out) if out.status.is_success() => Ok((out.gas_used, out.bytes.to_vec())),
        Ok(out) => Err(WorstError::Refused {
            number,
            why: format!("{:?}", out.status),
        }),
        Err(e) => Err(WorstError::Refused {
            number,
            why: e.to_string(),
        }),
    }
}

fn hex(s: &str) -> Vec<u8> {
    alloy_primitives::hex::decode(s).expect("constant hex")
}

/// `bytes` left-padded to `len`.
fn padded(bytes: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0; len - bytes.len()];
    out.extend_from_slice(bytes);
    out
}

/// A 32-byte scalar with every bit position in play (keccak of a tag).
pub fn scalar(tag: &str) -> Vec<u8> {
    keccak256(tag).to_vec()
}

/// ECRECOVER: `hash ‖ v ‖ r ‖ s` of a real signature.
pub fn ecrecover() -> Vec<u8> {
    let key = super::super::key(0);
    let hash = keccak256("worst-case ecrecover");
    let (signature, recovery) = key
        .sign_prehash_recoverable(hash.as_slice())
        .expect("a 32-byte prehash signs");
    let mut input = hash.to_vec();
    input.extend_from_slice(&B32::from(U256::from(27 + recovery.to_byte())).0);
    input.extend_from_slice(&signature.to_bytes());
    input
}

type B32 = alloy_primitives::B256;

/// MODEXP: `len(base) ‖ len(exp) ‖ len(mod) ‖ base ‖ exp ‖ mod`. The modulus is odd unless
/// `even`; the exponent's bytes are all ones (every bit a multiplication).
pub fn modexp(base_len: usize, exp: &[u8], mod_len: usize, even: bool) -> Vec<u8> {
    let mut input = Vec::new();
    for len in [base_len, exp.len(), mod_len] {
        input.extend_from_slice(&B32::from(U256::from(len)).0);
    }
    let stretch = |tag: &str, len: usize| -> Vec<u8> {
        (0..len.div_ceil(32))
            .flat_map(|i| keccak256(format!("{tag} {i}")).0)
            .take(len)
            .collect()
    };
    let base = stretch("worst modexp base", base_len);
    let mut modulus = stretch("worst modexp modulus", mod_len);
    if let Some(first) = modulus.first_mut() {
        *first |= 0x80;
    }
    if let Some(last) = modulus.last_mut() {
        *last = if even { *last & !1 } else { *last | 1 };
    }
    input.extend_from_slice(&base);
    input.extend_from_slice(exp);
    input.extend_from_slice(&modulus);
    input
}

/// BN254's G1 generator, `x ‖ y`.
fn bn_g1() -> Vec<u8> {
    let mut out = B32::from(U256::from(1)).to_vec();
    out.extend_from_slice(&B32::from(U256::from(2)).0);
    out
}

/// BN254's G2 generator in EIP-197's order: `x_im ‖ x_re ‖ y_im ‖ y_re`.
fn bn_g2() -> Vec<u8> {
    hex(concat!(
        "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2",
        "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed",
        "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b",
        "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa",
    ))
}

/// BN254 ADD: `G + G`.
pub fn bn_add() -> Vec<u8> {
    [bn_g1(), bn_g1()].concat()
}

/// BN254 MUL: `G · s` with a full-width scalar.
pub fn bn_mul() -> Vec<u8> {
    [bn_g1(), scalar("worst bn254 scalar")].concat()
}

/// BN254 PAIRING over `pairs` pairs of generators.
pub fn bn_pairing(pairs: usize) -> Vec<u8> {
    [bn_g1(), bn_g2()].concat().repeat(pairs)
}

/// BLAKE2F with `rounds` rounds: `rounds ‖ h ‖ m ‖ t ‖ f`.
pub fn blake2f(rounds: u32) -> Vec<u8> {
    let mut input = rounds.to_be_bytes().to_vec();
    input.extend(keccak256("worst blake2f h0").0);
    input.extend(keccak256("worst blake2f h1").0);
    for i in 0..4 {
        input.extend(keccak256(format!("worst blake2f m{i}")).0);
    }
    input.extend([0u8; 16]);
    input[4 + 64 + 128] = 128; // t: one full block
    input.push(1); // the final block
    input
}

/// KZG POINT_EVALUATION opening the zero polynomial at a point: commitment and proof at
/// infinity, `y = 0`, a valid opening at any `z`.
pub fn kzg(fork: Fork) -> Result<Vec<u8>, WorstError> {
    let mut infinity = vec![0u8; 48];
    infinity[0] = 0xc0;
    let (_, mut input) = call(fork, 2, &infinity)?;
    input[0] = 0x01; // VERSIONED_HASH_VERSION_KZG
    input.extend(B32::from(U256::from(0x5eed)).0); // z
    input.extend([0u8; 32]); // y
    input.extend_from_slice(&infinity);
    input.extend_from_slice(&infinity);
    Ok(input)
}

/// An EIP-2537 field element: 16 zero bytes, then the 48-byte big-endian value.
fn fp(value: &str) -> Vec<u8> {
    padded(&hex(value), 64)
}

/// BLS12-381's G1 generator.
fn bls_g1() -> Vec<u8> {
    [
        fp("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
        fp("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"),
    ]
    .concat()
}

/// BLS12-381's G2 generator: `x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1`.
fn bls_g2() -> Vec<u8> {
    [
        fp("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
        fp("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"),
        fp("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
        fp("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"),
    ]
    .concat()
}

/// BLS12-381 G1ADD: `G + G`.
pub fn bls_g1_add() -> Vec<u8> {
    [bls_g1(), bls_g1()].concat()
}

/// BLS12-381 G2ADD: `G + G`.
pub fn bls_g2_add() -> Vec<u8> {
    [bls_g2(), bls_g2()].concat()
}

/// One G1MSM pair: the generator and a full-width scalar.
pub fn bls_g1_msm_pair() -> Vec<u8> {
    [bls_g1(), scalar("worst bls scalar")].concat()
}

/// One G2MSM pair.
pub fn bls_g2_msm_pair() -> Vec<u8> {
    [bls_g2(), scalar("worst bls scalar")].concat()
}

/// One pairing pair `(G1, G2)`.
pub fn bls_pairing_pair() -> Vec<u8> {
    [bls_g1(), bls_g2()].concat()
}

/// A field element below p (its top byte kept small) from a tag.
fn bls_fp_from(tag: &str) -> Vec<u8> {
    let mut value = keccak256(tag).to_vec();
    value.extend_from_slice(&keccak256(format!("{tag} low"))[..16]);
    value[0] &= 0x0f;
    padded(&value, 64)
}

/// MAP_FP_TO_G1's input.
pub fn bls_map_fp() -> Vec<u8> {
    bls_fp_from("worst map fp")
}

/// MAP_FP2_TO_G2's input.
pub fn bls_map_fp2() -> Vec<u8> {
    [
        bls_fp_from("worst map fp2 c0"),
        bls_fp_from("worst map fp2 c1"),
    ]
    .concat()
}

/// P256VERIFY: `hash ‖ r ‖ s ‖ x ‖ y` of a real signature.
pub fn p256() -> Vec<u8> {
    use p256::ecdsa::{signature::hazmat::PrehashSigner, Signature, SigningKey};
    let key = SigningKey::from_slice(keccak256("worst-case p256 key").as_slice())
        .expect("a keccak digest is a valid P-256 key");
    let hash = keccak256("worst-case p256 message");
    let signature: Signature = key.sign_prehash(hash.as_slice()).expect("signs");
    let point = key.verifying_key().to_encoded_point(false);
    let mut input = hash.to_vec();
    input.extend_from_slice(&signature.to_bytes());
    input.extend_from_slice(point.x().expect("uncompressed"));
    input.extend_from_slice(point.y().expect("uncompressed"));
    input
}
