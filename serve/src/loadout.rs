//! The programs this service proves: the standard (EIP-8025) guest and the block guest, each
//! named as zkboost's OpenVM client looks a guest up: `program-` and the first 8 bytes of the
//! SHA-256 of its ELF, in hex, at version 0. A client holds the ELF it was given (`host serve
//! --elf-dir` writes them) and derives the name from it; friendly aliases (`standard`,
//! `block`) name the same programs.

use std::path::Path;

use prover::guest::{GuestSpec, Keccak, Program};
use sha2::{Digest, Sha256};

/// A program as the API names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ProgramRef {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: u32,
}

impl std::fmt::Display for ProgramRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@v{}", self.name, self.version)
    }
}

/// One guest of the loadout.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The guest program.
    pub program: Program,
    /// Its ELF's bytes, as built here.
    pub elf: Vec<u8>,
    /// Its name and version ([`name_of`]).
    pub canonical: ProgramRef,
    /// Its friendly alias.
    pub alias: ProgramRef,
}

/// The loadout.
#[derive(Debug, Clone)]
pub struct Loadout {
    /// Its guests, the standard guest first.
    pub entries: Vec<Entry>,
}

/// zkboost's name of a guest: `program-` and the first 8 bytes of the SHA-256 of its ELF.
pub fn name_of(elf: &[u8]) -> String {
    let digest = Sha256::digest(elf);
    format!("program-{}", alloy_primitives::hex::encode(&digest[..8]))
}

impl Loadout {
    /// Builds both guests (this project's keccak, the chips' crypto: what is pinned and proved).
    pub fn build() -> Result<Self, prover::guest::GuestError> {
        let mut entries = Vec::new();
        for (program, alias) in [(Program::Standard, "standard"), (Program::Guest, "block")] {
            let elf = GuestSpec::program(program, Keccak::Ours).build_bytes()?;
            entries.push(Entry {
                program,
                canonical: ProgramRef {
                    name: name_of(&elf),
                    version: 0,
                },
                alias: ProgramRef {
                    name: alias.into(),
                    version: 0,
                },
                elf,
            });
        }
        Ok(Self { entries })
    }

    /// Every name it answers to, canonical names first.
    pub fn programs(&self) -> Vec<ProgramRef> {
        let canonical = self.entries.iter().map(|e| e.canonical.clone());
        canonical
            .chain(self.entries.iter().map(|e| e.alias.clone()))
            .collect()
    }

    /// The guest `program` names.
    pub fn find(&self, program: &ProgramRef) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.canonical == *program || e.alias == *program)
    }

    /// Writes each ELF to `dir` as `<canonical name>.elf`; returns the paths.
    pub fn write_elfs(&self, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut paths = Vec::new();
        for entry in &self.entries {
            let path = dir.join(format!("{}.elf", entry.canonical.name));
            std::fs::write(&path, &entry.elf)?;
            paths.push(path);
        }
        Ok(paths)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_as_zkboost_does() {
        // SHA-256("abc") = ba7816bf8f01cfea 414140de5dae2223 ...
        assert_eq!(super::name_of(b"abc"), "program-ba7816bf8f01cfea");
    }
}
