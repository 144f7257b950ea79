//! Guest builds: which program, with which keccak, crypto and instrumentation, and where it
//! builds.
//!
//! A [`GuestSpec`] is the one description of a guest ELF. It yields the cargo features of
//! `program` (no feature string is spelled anywhere else), the number of public values the
//! guest reveals, and its name among prebuilt guests ([`GuestSpec::dir_name`]). Every variant
//! builds in one target directory, `$CARGO_TARGET_DIR/openvm-guest/shared` ([`SHARED_TARGET`]):
//! cargo keeps each feature set's artifacts apart, so switching variants never rebuilds from
//! scratch, the dependencies the variants share compile once, and cargo rebuilds only when
//! guest sources change. openvm-build installs the guest toolchain
//! (`nightly-2026-01-18` + `rust-src`) through rustup when it is missing. Every guest builds
//! with the workspace's `guest` profile (fat LTO, one codegen unit).
//!
//! A proof commits to the program the VM loads, and `host verify` rebuilds it from source, so
//! it must not depend on where the guest was built. OpenVM loads the ELF header as the first
//! segment (it sits in a `PT_LOAD` at 0x10000), and the header's section-table offset moves
//! with the size of the debug info, which holds the checkout's and the target directory's
//! paths. Measured: one source built under two target directories gave two exe commits
//! (`0x0047…` and `0x0023…`) from loaded segments that were byte-identical but for that
//! offset. So [`decode_elf`] zeroes the header's section-table fields before the VM loads the
//! program ([`canonical_header`]); the guest never reads its own header.
//!
//! The loaded data held the build machine's paths too: panic locations in `.rodata` name the
//! source files of dependencies under `$CARGO_HOME` and of `std` under `$RUSTUP_HOME`, so another
//! home directory built another program (and another commit). Every guest is built with cargo's
//! `trim-paths` ([`TRIM_PATHS`]), which names them without the machine's paths.

use std::path::{Path, PathBuf};

use openvm_build::{
    build_guest_package, find_unique_executable, get_package, GuestOptions, TargetFilter,
};
use openvm_transpiler::elf::Elf;
use openvm_transpiler::openvm_platform::memory::MEM_SIZE;

/// A guest that did not build or load. The VM's errors ([`crate::vm::VmError::Guest`]) carry
/// it; it lives here, with the builds, so the builds stand below the VM.
#[derive(Debug, thiserror::Error)]
pub enum GuestError {
    /// The guest did not build.
    #[error("building the guest ({variant}) failed{}", .code.map(|c| format!(" with exit code {c}")).unwrap_or_default())]
    GuestBuild {
        /// The variant.
        variant: &'static str,
        /// cargo's exit code.
        code: Option<i32>,
    },
    /// The guest's source is not where this `host` was built from (the checkout moved or is
    /// gone): `host` builds the guest from its own source, so rebuild `host` where it is.
    #[error("the guest's source {} is missing: rebuild `host` from the checkout it should use", .0.display())]
    GuestSource(std::path::PathBuf),
    /// The guest ELF could not be found or decoded.
    #[error("guest ELF: {0}")]
    Elf(String),
    /// The guest target directory could not be locked for a build.
    #[error("locking the guest target directory {}: {source}", .dir.display())]
    Lock {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The cargo profile guests build with (the workspace's `[profile.guest]`: fat LTO, one
/// codegen unit).
pub const GUEST_PROFILE: &str = "guest";

/// Public values the block guest reveals: [`program::PublicValues`] (block hash, parent hash,
/// post-state root, chain-config digest).
pub const PUBLIC_VALUES: usize = program::PublicValues::LEN;

/// Public values of a keccak-census build: the block's [`PUBLIC_VALUES`], then 10 little-endian
/// u64 (the census counters and the guest's total heap use).
pub const CENSUS_PUBLIC_VALUES: usize = PUBLIC_VALUES + 80;

/// Public values of a precompile-census build: the block's [`PUBLIC_VALUES`], then one
/// little-endian u32 per operation (calls).
pub const PRECOMPILE_CENSUS_PUBLIC_VALUES: usize = PUBLIC_VALUES + 4 * crypto::census::OPS;

/// Public values of the probe guests (package `probes`).
pub const PROBE_PUBLIC_VALUES: usize = 32;

/// The standard guest's public values: the 43-byte `StatelessValidationResult`, then zero
/// bytes to the next multiple of 32.
pub const STANDARD_PUBLIC_VALUES: usize = stateless_ssz::RESULT_BYTES.next_multiple_of(32);

/// Which keccak the guest hashes with.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Keccak {
    /// This project's heap-free sponge, RLP streamed into it.
    Ours,
    /// The idiomatic stock baseline: OpenVM's stock keccak as a stock user calls it (encode
    /// into a buffer, one `openvm_keccak256::keccak256` call per hash).
    Stock,
    /// The xorin baseline: this project's sponge and streaming over OpenVM's stock
    /// `native_xorin`: only the absorb differs from ours.
    #[serde(rename = "stock-xorin")]
    #[value(name = "stock-xorin")]
    StockXorin,
}

impl Keccak {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ours => "ours",
            Self::Stock => "stock",
            Self::StockXorin => "stock-xorin",
        }
    }
}

/// Where the guest's cryptography runs: sender recovery and the precompiles' cryptography
/// (`ECRECOVER`, `SHA256`, `MODEXP`, BN254 and BLS12-381 arithmetic and pairings, KZG point
/// evaluation, `P256VERIFY`); RIPEMD160 is software in both, and BLAKE2F's rounds run on this
/// project's BLAKE2b chip in both (crate `blake2-circuit`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Crypto {
    /// OpenVM's SHA-2, Int256, modular-arithmetic, Fp2 and short-Weierstrass chips (crate
    /// `crypto`).
    Openvm,
    /// revm's and k256's pure Rust on the RISC-V core: the baseline the chips are measured
    /// against.
    Software,
}

impl Crypto {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Openvm => "openvm",
            Self::Software => "software",
        }
    }
}

/// What a block guest reveals besides the block's public values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instrument {
    /// Nothing: the verifier as it is proved.
    None,
    /// The keccak census (`mpt` feature `census`).
    KeccakCensus,
    /// The precompile census (`crypto::census`; a second input names an operation to compute
    /// twice).
    PrecompileCensus,
}

/// A guest program: the block verifier (package `program`) or a probe (package `probes`: test
/// programs, not the verifier).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum Program {
    /// The block verifier (`program`'s binary `guest`).
    Guest,
    /// The standard stateless guest, EIP-8025 I/O (`program`'s binary `standard`).
    Standard,
    /// The keccak path under every placement the sponge meets (`probes`).
    KeccakAlignment,
    /// keccak256 of one aligned buffer (`probes`).
    KeccakAligned,
    /// The guest's cryptography against revm's, record by record (`probes`).
    CryptoCheck,
    /// A block's witness codes read and hashed, nothing else: the code categories' floor
    /// (`probes`).
    CodeFloor,
}

impl Program {
    /// Its binary's name (also its name in proof files).
    pub fn bin(self) -> &'static str {
        match self {
            Self::Guest => "guest",
            Self::Standard => "standard",
            Self::KeccakAlignment => "keccak_alignment",
            Self::KeccakAligned => "keccak_aligned",
            Self::CryptoCheck => "crypto_check",
            Self::CodeFloor => "code_floor",
        }
    }

    /// The program whose binary is named `bin`.
    pub fn from_bin(bin: &str) -> Option<Self> {
        <Self as clap::ValueEnum>::value_variants()
            .iter()
            .copied()
            .find(|p| p.bin() == bin)
    }

    /// The workspace package it is built from.
    pub fn package(self) -> &'static str {
        match self {
            Self::Guest | Self::Standard => "program",
            _ => "probes",
        }
    }
}

/// One guest ELF: a [`Program`] with its keccak, crypto and instrumentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuestSpec {
    /// The program.
    pub program: Program,
    /// Its keccak.
    pub keccak: Keccak,
    /// Where its cryptography runs.
    pub crypto: Crypto,
    /// Its instrumentation (block verifier only).
    pub instrument: Instrument,
}

impl GuestSpec {
    /// The block verifier.
    pub fn block(keccak: Keccak, crypto: Crypto) -> Self {
        Self::program(Program::Guest, keccak).with_crypto(crypto)
    }

    /// `program` with crypto on the chips and no instrumentation: what `host prove` proves.
    pub fn program(program: Program, keccak: Keccak) -> Self {
        Self {
            program,
            keccak,
            crypto: Crypto::Openvm,
            instrument: Instrument::None,
        }
    }

    /// The same guest with its cryptography on `crypto`.
    pub fn with_crypto(self, crypto: Crypto) -> Self {
        Self { crypto, ..self }
    }

    /// The same guest with `instrument`.
    pub fn instrumented(self, instrument: Instrument) -> Self {
        Self { instrument, ..self }
    }

    /// Its package's cargo features (`program` and `probes` name them alike).
    pub fn features(&self) -> Vec<&'static str> {
        let mut features = vec!["guest"];
        match self.keccak {
            Keccak::Ours => {}
            Keccak::Stock => features.push("stock-keccak"),
            Keccak::StockXorin => features.push("stock-xorin"),
        }
        if self.crypto == Crypto::Openvm {
            features.push("openvm-crypto");
        }
        match self.instrument {
            Instrument::None => {}
            Instrument::KeccakCensus => features.push("census"),
            Instrument::PrecompileCensus => features.push("crypto-census"),
        }
        features
    }

    /// How many public values it reveals.
    pub fn public_values(&self) -> usize {
        match (self.program, self.instrument) {
            (Program::Guest, Instrument::None) => PUBLIC_VALUES,
            (Program::Guest, Instrument::KeccakCensus) => CENSUS_PUBLIC_VALUES,
            (Program::Guest, Instrument::PrecompileCensus) => PRECOMPILE_CENSUS_PUBLIC_VALUES,
            (Program::Standard, _) => STANDARD_PUBLIC_VALUES,
            _ => PROBE_PUBLIC_VALUES,
        }
    }

    /// Its folder's name among prebuilt guests ([`GuestSpec::prebuilt_path`]): the keccak
    /// variant, then `software-crypto`, `census` or `crypto-census` where they apply. A probe
    /// shares its variant's folder with the block verifier.
    pub fn dir_name(&self) -> String {
        let mut name = self.keccak.name().to_owned();
        if self.crypto == Crypto::Software {
            name += "-software-crypto";
        }
        match self.instrument {
            Instrument::None => {}
            Instrument::KeccakCensus => name += "-census",
            Instrument::PrecompileCensus => name += "-crypto-census",
        }
        name
    }

    /// Builds (or reuses) its ELF, or reads it from the prebuilt guests' folder where
    /// [`PREBUILT_ENV`] names one: what a prover runs.
    pub fn build(&self) -> Result<Elf, GuestError> {
        decode_elf(&self.build_bytes()?)
    }

    /// Builds (or reuses) its ELF from this host's source, whatever [`PREBUILT_ENV`] says: what
    /// a verifier checks against. A folder of prebuilt guests is the prover's input; a verifier
    /// that read it would accept proofs of whatever program whoever can write it put there.
    pub fn build_from_source(&self) -> Result<Elf, GuestError> {
        decode_elf(&self.build_bytes_from_source()?)
    }

    /// Builds (or reuses) its ELF and returns the file's bytes (symbols included). Where
    /// [`PREBUILT_ENV`] names a folder, the ELF is read from it ([`GuestSpec::prebuilt_path`])
    /// and nothing is built: a proving machine with no Rust toolchain (the GPU bundle,
    /// `scripts/gpu-bundle.sh`) proves the guests built and checked against their pins here.
    pub fn build_bytes(&self) -> Result<Vec<u8>, GuestError> {
        if let Some(dir) = std::env::var_os(PREBUILT_ENV) {
            let path = self.prebuilt_path(Path::new(&dir));
            return std::fs::read(&path).map_err(|e| {
                GuestError::Elf(format!(
                    "{}: {e} (${PREBUILT_ENV} names the folder of prebuilt guests, and this host builds none)",
                    path.display()
                ))
            });
        }
        self.build_bytes_from_source()
    }

    /// [`GuestSpec::build_bytes`] from this host's source, whatever [`PREBUILT_ENV`] says.
    pub fn build_bytes_from_source(&self) -> Result<Vec<u8>, GuestError> {
        self.build_bytes_in(&guest_target_root().join(SHARED_TARGET))
    }

    /// Where its prebuilt ELF lies in the folder `dir`: `DIR/<variant>/<binary>`, the variant
    /// being [`GuestSpec::dir_name`].
    pub fn prebuilt_path(&self, dir: &Path) -> PathBuf {
        dir.join(self.dir_name()).join(self.program.bin())
    }

    /// [`GuestSpec::build_bytes`] in the target directory `target_dir`.
    pub fn build_bytes_in(&self, target_dir: &Path) -> Result<Vec<u8>, GuestError> {
        let pkg_dir = workspace_dir().join(self.program.package());
        // `get_package` panics on a missing manifest.
        if !pkg_dir.join("Cargo.toml").is_file() {
            return Err(GuestError::GuestSource(pkg_dir));
        }
        let pkg = get_package(&pkg_dir);
        // Every variant builds into one directory, so the dependencies they share compile
        // once; but each build writes its ELF to the same path. The lock spans the build and
        // the read, so no other build (a thread or another process) writes that path between.
        let _lock = BuildLock::take(target_dir)?;
        let target_dir = target_dir.to_owned();
        let opts = GuestOptions::default()
            .with_features(self.features())
            .with_options(TRIM_PATHS.iter().chain(["--ignore-rust-version"].iter()))
            .with_profile(GUEST_PROFILE.into())
            .with_target_dir(target_dir);
        let filter = Some(TargetFilter {
            name: self.program.bin().into(),
            kind: "bin".into(),
        });
        let variant = self.keccak.name();
        eprintln!(
            "building the guest binary {} ({variant}) ...",
            self.program.bin()
        );
        let target_dir = build_guest_package(&pkg, &opts, None, &filter)
            .map_err(|code| GuestError::GuestBuild { variant, code })?;
        let elf_path = find_unique_executable(&pkg_dir, target_dir, &filter)
            .map_err(|e| GuestError::Elf(e.to_string()))?;
        std::fs::read(&elf_path)
            .map_err(|e| GuestError::Elf(format!("{}: {e}", elf_path.display())))
    }
}

/// The one target directory, under [`guest_target_root`], that every guest variant builds in.
/// Cargo keeps each crate's artifacts per feature set (its `-C metadata`), so variants do not
/// evict each other, and the dependencies they share (revm, alloy, OpenVM's guest libraries,
/// `std`) compile once rather than once per variant: on a machine with nothing built, each
/// variant's own directory recompiled all of them.
pub const SHARED_TARGET: &str = "shared";

/// An exclusive lock on a guest target directory, from before a build to after its ELF is
/// read (held until dropped). `flock` semantics: two threads of one process, each with its own
/// open file, exclude each other as two processes do.
struct BuildLock {
    /// Held for its lock, which closing it releases.
    _file: std::fs::File,
}

impl BuildLock {
    fn take(target_dir: &Path) -> Result<Self, GuestError> {
        let failed = |source| GuestError::Lock {
            dir: target_dir.to_owned(),
            source,
        };
        std::fs::create_dir_all(target_dir).map_err(failed)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(target_dir.join(".stateless-verifier-build.lock"))
            .map_err(failed)?;
        file.lock().map_err(failed)?;
        Ok(Self { _file: file })
    }
}

/// The environment variable naming a folder of prebuilt guest ELFs: where it is set, guests
/// are read from it ([`GuestSpec::prebuilt_path`]), never built.
pub const PREBUILT_ENV: &str = "STATELESS_VERIFIER_GUESTS";

/// Cargo's `trim-paths` for every guest build (the guest toolchain's nightly cargo): cargo
/// itself remaps the sources it compiles to machine-independent names (a dependency to
/// `name-version/…`, `std` to `/rustc/<commit>/…`, the workspace to relative paths). Not
/// `--remap-path-prefix` in RUSTFLAGS: cargo hashes RUSTFLAGS into every crate's `-C metadata`
/// (measured: the same sources under two flag sets gave `libmpt-7b83…` and `libmpt-9e6c…` and two
/// exe commitments), so flags naming `$HOME` would make the program depend on the machine again.
pub const TRIM_PATHS: [&str; 3] = [
    "-Ztrim-paths",
    "--config",
    "profile.guest.trim-paths=\"all\"",
];

/// A guest ELF file's program, as the VM loads it (its header made [`canonical_header`]).
pub fn decode_elf(bytes: &[u8]) -> Result<Elf, GuestError> {
    Elf::decode(&canonical_header(bytes), MEM_SIZE as u32)
        .map_err(|e| GuestError::Elf(e.to_string()))
}

/// `bytes` with the ELF32 header's section-table fields (`e_shoff`, `e_shnum`,
/// `e_shstrndx`) zeroed: what is loaded then depends on the loaded segments alone, not on the
/// size of the debug info before the section table. Anything but an ELF32 file is returned
/// as it is (for [`Elf::decode`] to reject).
pub fn canonical_header(bytes: &[u8]) -> Vec<u8> {
    const ELFCLASS32: u8 = 1;
    let mut out = bytes.to_vec();
    if out.len() >= 52 && out.starts_with(b"\x7fELF") && out[4] == ELFCLASS32 {
        out[32..36].fill(0); // e_shoff
        out[48..52].fill(0); // e_shnum, e_shstrndx
    }
    out
}

/// Where guest builds go: `$CARGO_TARGET_DIR/openvm-guest`, else `target/openvm-guest` in the
/// workspace.
pub fn guest_target_root() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_dir().join("target"))
        .join("openvm-guest")
}

fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("prover/ has a parent")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The features and directories are those the stringly builds had, so no guest's ELF or
    /// build cache moves.
    #[test]
    fn specs_give_the_features_and_directories_of_each_variant() {
        let block = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
        assert_eq!(block.features(), ["guest", "openvm-crypto"]);
        assert_eq!(block.dir_name(), "ours");
        let stock = GuestSpec::block(Keccak::Stock, Crypto::Openvm);
        assert_eq!(stock.features(), ["guest", "stock-keccak", "openvm-crypto"]);
        assert_eq!(stock.dir_name(), "stock");
        let software = GuestSpec::block(Keccak::Ours, Crypto::Software);
        assert_eq!(software.features(), ["guest"]);
        assert_eq!(software.dir_name(), "ours-software-crypto");
        let census = stock.instrumented(Instrument::KeccakCensus);
        assert_eq!(
            census.features(),
            ["guest", "stock-keccak", "openvm-crypto", "census"]
        );
        assert_eq!(census.dir_name(), "stock-census");
        assert_eq!(census.public_values(), PUBLIC_VALUES + 80);
        let precompiles = software.instrumented(Instrument::PrecompileCensus);
        assert_eq!(precompiles.features(), ["guest", "crypto-census"]);
        assert_eq!(precompiles.dir_name(), "ours-software-crypto-crypto-census");
        let xorin = GuestSpec::block(Keccak::StockXorin, Crypto::Openvm);
        assert_eq!(xorin.features(), ["guest", "stock-xorin", "openvm-crypto"]);
        assert_eq!(xorin.dir_name(), "stock-xorin");
        let probe = GuestSpec::program(Program::KeccakAlignment, Keccak::Stock);
        assert_eq!(probe.features(), ["guest", "stock-keccak", "openvm-crypto"]);
        assert_eq!(probe.dir_name(), "stock");
        assert_eq!(probe.public_values(), PROBE_PUBLIC_VALUES);
        assert_eq!(GuestSpec::program(Program::Guest, Keccak::Ours), block);
        assert_eq!(probe.program.package(), "probes");
        for program in <Program as clap::ValueEnum>::value_variants() {
            assert_eq!(Program::from_bin(program.bin()), Some(*program));
        }
        assert_eq!(Program::from_bin("guest_v2"), None);
        assert_eq!(block.program.package(), "program");
    }
}
