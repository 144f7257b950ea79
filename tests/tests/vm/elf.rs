//! The program a proof commits to, whatever the build's location.

use prover::guest::{Crypto, GuestSpec, Keccak};

/// The program a proof commits to does not depend on where the guest was built: another
/// checkout or target directory gives debug info of another size, so the section table (whose
/// offset is in the ELF header, which OpenVM loads) sits elsewhere.
#[test]
fn the_loaded_program_does_not_depend_on_where_the_guest_was_built() {
    use openvm_transpiler::elf::Elf;
    use openvm_transpiler::openvm_platform::memory::MEM_SIZE;
    use prover::guest::decode_elf;
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let bytes = spec.build_bytes().unwrap_or_else(|e| panic!("{e}"));
    // The same ELF with 64 more bytes of debug info before its section table.
    let shoff = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
    let mut moved = bytes[..shoff].to_vec();
    moved.extend([0u8; 64]);
    moved.extend(&bytes[shoff..]);
    moved[32..36].copy_from_slice(&(shoff as u32 + 64).to_le_bytes());
    let exe = |elf| prover::vm::Vm::new(elf, spec.public_values()).unwrap();
    let (a, b) = (
        exe(decode_elf(&bytes).unwrap()),
        exe(decode_elf(&moved).unwrap()),
    );
    assert_eq!(a.exe().init_memory, b.exe().init_memory);
    assert_eq!(a.exe().pc_start, b.exe().pc_start);
    // As OpenVM decodes the files themselves, their programs differ.
    let raw = |bytes: &[u8]| exe(Elf::decode(bytes, MEM_SIZE as u32).unwrap());
    assert_ne!(raw(&bytes).exe().init_memory, raw(&moved).exe().init_memory);
}
