//! The chip against revm's `BLAKE2F` (EIP-152's vector, random differential runs) and against
//! tampered traces ([`tampered`]), in the style of OpenVM's own chip tests.

use std::sync::{Arc, Mutex};

use openvm_circuit::arch::testing::{
    TestBuilder, TestChipHarness, VmChipTestBuilder, BITWISE_OP_LOOKUP_BUS,
};
use openvm_circuit_primitives::bitwise_op_lookup::{
    BitwiseOperationLookupBus, BitwiseOperationLookupChip,
};
use openvm_instructions::{instruction::Instruction, LocalOpcode};
use openvm_stark_backend::{
    interaction::{BusIndex, PermutationCheckBus},
    p3_field::{PrimeCharacteristicRing, PrimeField32},
};
use openvm_stark_sdk::p3_baby_bear::BabyBear;
use rand::{rngs::StdRng, Rng, SeedableRng};

use crate::{
    op::{Blake2bExecutor, Blake2bOpAir, Blake2bOpChip},
    reference,
    round::{Blake2bRoundAir, Blake2bRoundChip},
    Blake2bOpcode, STATE_BYTES,
};

mod tampered;

type F = BabyBear;
type Harness = TestChipHarness<F, Blake2bExecutor, Blake2bOpAir, Blake2bOpChip<F>>;
const STATE_BUS: BusIndex = 13;
/// Registers holding `v`'s address, `m`'s and the count.
const RD: usize = 4 * 10;
const RS1: usize = 4 * 11;
const RS2: usize = 4 * 12;

struct Setup {
    tester: VmChipTestBuilder<F>,
    harness: Harness,
    round: (Blake2bRoundAir, Blake2bRoundChip),
    bitwise: Arc<BitwiseOperationLookupChip<8>>,
}

fn setup() -> Setup {
    let tester = VmChipTestBuilder::default();
    let bitwise = Arc::new(BitwiseOperationLookupChip::<8>::new(
        BitwiseOperationLookupBus::new(BITWISE_OP_LOOKUP_BUS),
    ));
    let state_bus = PermutationCheckBus::new(STATE_BUS);
    let bits = tester.address_bits();
    let air = Blake2bOpAir::new(
        tester.execution_bridge(),
        tester.memory_bridge(),
        bitwise.bus(),
        state_bus,
        bits,
        Blake2bOpcode::CLASS_OFFSET,
    );
    let jobs = Arc::new(Mutex::new(Vec::new()));
    let chip = Blake2bOpChip::new(bitwise.clone(), bits, tester.memory_helper(), jobs.clone());
    let executor = Blake2bExecutor::new(Blake2bOpcode::CLASS_OFFSET, bits);
    Setup {
        harness: Harness::with_capacity(executor, air, chip, 64),
        round: (
            Blake2bRoundAir::new(bitwise.bus(), state_bus),
            Blake2bRoundChip::new(bitwise.clone(), jobs),
        ),
        bitwise,
        tester,
    }
}

fn write_bytes(tester: &mut VmChipTestBuilder<F>, ptr: usize, bytes: &[u8; STATE_BYTES]) {
    for (i, word) in bytes.chunks_exact(4).enumerate() {
        let word: [u8; 4] = word.try_into().unwrap();
        tester.write(2, ptr + 4 * i, word.map(F::from_u8));
    }
}

fn read_bytes(tester: &mut VmChipTestBuilder<F>, ptr: usize) -> [u8; STATE_BYTES] {
    let mut out = [0u8; STATE_BYTES];
    for (i, word) in out.chunks_exact_mut(4).enumerate() {
        let read: [F; 4] = tester.read(2, ptr + 4 * i);
        for (dst, cell) in word.iter_mut().zip(read) {
            *dst = cell.as_canonical_u32() as u8;
        }
    }
    out
}

/// Runs `BLAKE2B_ROUNDS` with `v` at `v_ptr` and `m` at `m_ptr`; returns `v` after.
fn execute(
    s: &mut Setup,
    v: &[u64; 16],
    m: &[u64; 16],
    rounds: u32,
    v_ptr: usize,
    m_ptr: usize,
) -> [u64; 16] {
    write_bytes(&mut s.tester, m_ptr, &reference::bytes(m));
    write_bytes(&mut s.tester, v_ptr, &reference::bytes(v));
    s.tester
        .write(1, RD, (v_ptr as u32).to_le_bytes().map(F::from_u8));
    s.tester
        .write(1, RS1, (m_ptr as u32).to_le_bytes().map(F::from_u8));
    s.tester.write(1, RS2, rounds.to_le_bytes().map(F::from_u8));
    s.tester.execute(
        &mut s.harness.executor,
        &mut s.harness.arena,
        &Instruction::from_usize(
            Blake2bOpcode::BLAKE2B_ROUNDS.global_opcode(),
            [RD, RS1, RS2, 1, 2],
        ),
    );
    reference::words(&read_bytes(&mut s.tester, v_ptr))
}

/// EIP-152's compression through the instruction: the software initialisation and
/// finalisation around `rounds` rounds on the chip (split as the guest splits them).
fn compress_on_chip(
    s: &mut Setup,
    rounds: u32,
    h: &mut [u64; 8],
    m: &[u64; 16],
    t: [u64; 2],
    f: bool,
    ptrs: (usize, usize),
) {
    let mut v = blake2_guest::working_vector(h, &t, f);
    let mut left = rounds;
    while left > 0 {
        let n = left.min(blake2_guest::CHUNK_ROUNDS);
        v = execute(s, &v, m, n, ptrs.0, ptrs.1);
        left -= n;
    }
    blake2_guest::finish(h, &v);
}

fn prove(s: Setup) {
    s.tester
        .build()
        .load(s.harness)
        .load_periphery(s.round)
        .load_periphery((s.bitwise.air, s.bitwise))
        .finalize()
        .simple_test()
        .expect("the honest trace verifies");
}

/// EIP-152 test vectors 4 to 7 (0, 12 and 1 rounds, final and not): the chip's result is
/// revm's and the EIP's.
#[test]
fn eip152_vectors() {
    // BLAKE2b-512's initial state: IV with the parameter block (64-byte digest, no key,
    // fanout and depth 1) in its first word.
    let mut h = blake2_guest::IV;
    h[0] ^= 0x0101_0040;
    let mut m = [0u64; 16];
    m[0] = 0x636261; // "abc"
    let t = [3, 0];
    let eip = |out: &[u64; 8]| -> String {
        out.iter()
            .flat_map(|w| w.to_le_bytes())
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let cases = [
        (0, true, "08c9bcf367e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d282e6ad7f520e511f6c3e2b8c68059b9442be0454267ce079217e1319cde05b"),
        (12, true, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"),
        (12, false, "75ab69d3190a562c51aef8d88f1c2775876944407270c42c9844252c26d2875298743e7f6d5ea2f2d3e8d226039cd31b4e426ac4f2d3d666a610c2116fde4735"),
        (1, true, "b63a380cb2897d521994a85234ee2c181b5f844d2c624c002677e9703449d2fba551b3a8333bcdf5f2f7e08993d53923de3d64fcc68c034e717b9293fed7a421"),
    ];
    let mut s = setup();
    for (rounds, f, expected) in cases {
        let mut ours = h;
        compress_on_chip(&mut s, rounds, &mut ours, &m, t, f, (0x1000, 0x2000));
        let mut revm = h;
        revm::precompile::blake2::compress(rounds, &mut revm, &m, &t, f);
        assert_eq!(ours, revm, "{rounds} rounds, final {f}");
        assert_eq!(eip(&ours), expected, "{rounds} rounds, final {f}");
    }
    prove(s);
}

/// Random states and messages against revm (fixed seed): round counts 1, 9 to 12, 20 and 97,
/// final flag set and unset, `v` and `m` at 4-byte (not 8-byte) aligned addresses, across page
/// boundaries, overlapping, and at the top of the address range. One trace, proved.
#[test]
fn differential_against_revm() {
    let mut rng = StdRng::seed_from_u64(152);
    let mut s = setup();
    let top = (1usize << s.tester.address_bits()) - STATE_BYTES;
    let placements = [
        (0x1004, 0x3004),
        (0x0fc0, 0x1fc4), // both cross a 4 KiB page
        (0x1_0000 - 64, 0x2_0000 - 124),
        (0x5000, 0x5040),         // m overlaps v's upper half
        (0x6000, 0x6000),         // m is v
        (top, top - STATE_BYTES), // the last 128 bytes of the address space
    ];
    for (i, rounds) in [1u32, 9, 10, 11, 12, 20, 97, 12].into_iter().enumerate() {
        let mut h: [u64; 8] = core::array::from_fn(|_| rng.random());
        let m: [u64; 16] = core::array::from_fn(|_| rng.random());
        let t = [rng.random(), rng.random()];
        let f = i % 2 == 1;
        let mut revm = h;
        revm::precompile::blake2::compress(rounds, &mut revm, &m, &t, f);
        let (v_ptr, m_ptr) = placements[i % placements.len()];
        if m_ptr.abs_diff(v_ptr) < STATE_BYTES {
            // Overlapping: `execute` writes m, then v over it; the instruction reads m as
            // memory then holds it, before its own writes.
            let v: [u64; 16] = core::array::from_fn(|_| rng.random());
            let base = v_ptr.min(m_ptr);
            let mut image = vec![0u8; 2 * STATE_BYTES];
            image[m_ptr - base..][..STATE_BYTES].copy_from_slice(&reference::bytes(&m));
            image[v_ptr - base..][..STATE_BYTES].copy_from_slice(&reference::bytes(&v));
            let m_seen = reference::words(image[m_ptr - base..][..STATE_BYTES].try_into().unwrap());
            let mut expected = v;
            reference::rounds(&mut expected, &m_seen, rounds);
            assert_eq!(execute(&mut s, &v, &m, rounds, v_ptr, m_ptr), expected);
            continue;
        }
        compress_on_chip(&mut s, rounds, &mut h, &m, t, f, (v_ptr, m_ptr));
        assert_eq!(h, revm, "{rounds} rounds at {v_ptr:#x}, {m_ptr:#x}");
    }
    prove(s);
}

#[test]
fn transpiles_only_its_own_funct7() {
    use openvm_transpiler::TranspilerExtension;
    let encode = |funct7: u32| {
        funct7 << 25 | 12 << 20 | 11 << 15 | 0b100 << 12 | 10 << 7 | blake2_guest::OPCODE as u32
    };
    let ours = crate::Blake2bTranspilerExtension;
    let out = TranspilerExtension::<F>::process_custom(&ours, &[encode(0x10)]).expect("ours");
    let instruction = out.instructions[0].clone().expect("one instruction");
    assert_eq!(
        instruction.opcode,
        Blake2bOpcode::BLAKE2B_ROUNDS.global_opcode()
    );
    let operands = [
        instruction.a,
        instruction.b,
        instruction.c,
        instruction.d,
        instruction.e,
    ];
    assert_eq!(operands, [40, 44, 48, 1, 2].map(F::from_u32));
    // Keccak's (0, 1) and SHA-2's (2, 3) are not ours.
    for funct7 in 0..4 {
        assert!(TranspilerExtension::<F>::process_custom(&ours, &[encode(funct7)]).is_none());
    }
}

/// The executors' reference against revm's `compress` (its AVX2 or portable path) for 0 to 30
/// rounds: every schedule, and each twice.
#[test]
fn reference_matches_revm() {
    let mut rng = StdRng::seed_from_u64(10);
    for rounds in 0..=30u32 {
        let h: [u64; 8] = core::array::from_fn(|_| rng.random());
        let m: [u64; 16] = core::array::from_fn(|_| rng.random());
        let t = [rng.random(), rng.random()];
        let f = rounds % 3 == 0;
        let (mut ours, mut revm) = (h, h);
        reference::compress(rounds, &mut ours, &m, t, f);
        revm::precompile::blake2::compress(rounds, &mut revm, &m, &t, f);
        assert_eq!(ours, revm, "{rounds} rounds");
    }
}
