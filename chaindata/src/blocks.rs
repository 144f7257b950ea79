//! Block files on disk.
//!
//! A block is two files in one directory:
//! - `<n>.block.rlp`: the raw block, `rlp([header, transactions, ommers, withdrawals])`;
//! - `<n>.witness.json`: `{"state": [hex], "codes": [hex], "keys": [hex], "headers": [hex]}`,
//!   the shape of `debug_executionWitness`.

use std::path::{Path, PathBuf};

use alloy_consensus::Header;
use alloy_primitives::{Bytes, B256};
use alloy_rlp::Decodable;
use program::ExecutionWitness;
use serde::Deserialize;

/// The default directory of block files, relative to the working directory.
pub const DEFAULT_BLOCKS_DIR: &str = "blocks";

/// The block `host run` runs when given none: the project's generated devnet block.
pub const DEFAULT_BLOCK: &str = "devnet";

/// The subdirectory of the blocks directory that fetched blocks go to (ignored by git).
pub const CACHE_DIR: &str = "cache";

/// The project's `blocks/`: `./blocks` when the working directory has one, else the checkout
/// this binary was built from (so `host run` works from any directory).
pub fn default_root() -> PathBuf {
    let here = PathBuf::from(DEFAULT_BLOCKS_DIR);
    if here.is_dir() {
        return here;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let built = manifest
        .parent()
        .unwrap_or(manifest)
        .join(DEFAULT_BLOCKS_DIR);
    if built.is_dir() {
        built
    } else {
        here
    }
}

/// Where fetched blocks go when no `--blocks-dir` is given: `blocks/cache/`.
pub fn cache_dir() -> PathBuf {
    default_root().join(CACHE_DIR)
}

/// The directories searched for a block when no `--blocks-dir` is given: the project's
/// `blocks/` (generated blocks) and its fetched cache.
pub fn default_dirs() -> [PathBuf; 2] {
    [default_root(), cache_dir()]
}

/// A block whose files are not where they were looked for.
#[derive(Debug, thiserror::Error)]
#[error("block {id}: missing {}; fetch it with `host fetch --block {id} --rpc-url <archive node URL>` (or pass --rpc-url to `host run`)", .missing.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
pub struct MissingBlock {
    /// The block asked for.
    pub id: String,
    /// The files looked for that are not there (in the first directory searched when
    /// neither file exists anywhere).
    pub missing: Vec<PathBuf>,
}

/// The directory among `dirs` holding both of block `id`'s files.
pub fn locate(dirs: &[PathBuf], id: &str) -> Result<PathBuf, MissingBlock> {
    let mut missing = Vec::new();
    for dir in dirs {
        let (block, witness) = block_paths(dir, id);
        match (block.is_file(), witness.is_file()) {
            (true, true) => return Ok(dir.clone()),
            (false, false) => {}
            (true, false) => missing.push(witness),
            (false, true) => missing.push(block),
        }
    }
    if let (true, Some(first)) = (missing.is_empty(), dirs.first()) {
        let (block, witness) = block_paths(first, id);
        missing = vec![block, witness];
    }
    Err(MissingBlock {
        id: id.to_owned(),
        missing,
    })
}

/// A block file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The witness file is not the expected JSON.
    #[error("{path} is not an execution witness: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// What serde_json said (with line and column).
        source: serde_json::Error,
    },
    /// The block file is not an RLP list whose first item is a header.
    #[error("{path} is not an RLP block: {source}")]
    Block {
        /// The file.
        path: PathBuf,
        /// The RLP error.
        source: alloy_rlp::Error,
    },
}

/// `debug_executionWitness`'s JSON.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WitnessJson {
    state: Vec<Bytes>,
    codes: Vec<Bytes>,
    #[serde(default)]
    keys: Vec<Bytes>,
    #[serde(default)]
    headers: Vec<Bytes>,
}

/// A block and its witness, as loaded from disk.
#[derive(Debug, Clone)]
pub struct BlockData {
    /// The block's id: its number, or a fixture's name (from the file name).
    pub id: String,
    /// The raw block RLP.
    pub block_rlp: Vec<u8>,
    /// The block header's RLP (a slice of `block_rlp`'s first item).
    pub header_range: std::ops::Range<usize>,
    /// The header, decoded once on loading (the fork it runs under, the number a node was
    /// asked for).
    pub header: Header,
    /// The witness.
    pub witness: ExecutionWitness,
    /// The witness's `keys` (preimages of hashed keys; not needed for validation).
    pub keys: Vec<Bytes>,
}

impl BlockData {
    /// The header's RLP.
    pub fn header_rlp(&self) -> &[u8] {
        &self.block_rlp[self.header_range.clone()]
    }

    /// The block hash: keccak256 of the header's RLP.
    pub fn block_hash(&self) -> B256 {
        mpt::keccak256(self.header_rlp())
    }
}

/// The ids of the blocks in `dir` (every `<id>.block.rlp`), sorted.
pub fn list_blocks(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut ids: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .into_string()
                .ok()?
                .strip_suffix(".block.rlp")
                .map(str::to_owned)
        })
        .collect();
    ids.sort();
    Ok(ids)
}

/// Paths of block `id`'s two files in `dir`.
pub fn block_paths(dir: &Path, id: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{id}.block.rlp")),
        dir.join(format!("{id}.witness.json")),
    )
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_owned(),
        source,
    })
}

/// The byte range of the first item of an RLP list (a block's header).
pub fn first_item(block: &[u8]) -> Result<std::ops::Range<usize>, alloy_rlp::Error> {
    let mut buf = block;
    let outer = alloy_rlp::Header::decode(&mut buf)?;
    if !outer.list {
        return Err(alloy_rlp::Error::UnexpectedString);
    }
    if buf.len() != outer.payload_length {
        return Err(alloy_rlp::Error::UnexpectedLength);
    }
    let start = block.len() - buf.len();
    let inner = alloy_rlp::Header::decode(&mut buf)?;
    if !inner.list {
        return Err(alloy_rlp::Error::UnexpectedString);
    }
    if buf.len() < inner.payload_length {
        return Err(alloy_rlp::Error::InputTooShort);
    }
    let end = block.len() - buf.len() + inner.payload_length;
    Ok(start..end)
}

impl BlockData {
    /// A block from its raw RLP and witness; fails when the RLP is not a list that starts with
    /// a header.
    pub fn new(
        id: String,
        block_rlp: Vec<u8>,
        witness: ExecutionWitness,
        keys: Vec<Bytes>,
    ) -> Result<Self, alloy_rlp::Error> {
        let header_range = first_item(&block_rlp)?;
        let header = Header::decode(&mut &block_rlp[header_range.clone()])?;
        Ok(Self {
            id,
            block_rlp,
            header_range,
            header,
            witness,
            keys,
        })
    }
}

/// Loads block `id` (a number, or a fixture's name) from `dir`.
pub fn load(dir: &Path, id: &str) -> Result<BlockData, LoadError> {
    let (block_path, witness_path) = block_paths(dir, id);
    let block_rlp = read(&block_path)?;
    let json = read(&witness_path)?;
    let w: WitnessJson = serde_json::from_slice(&json).map_err(|source| LoadError::Json {
        path: witness_path,
        source,
    })?;
    let witness = ExecutionWitness {
        state: w.state,
        codes: w.codes,
        headers: w.headers,
    };
    BlockData::new(id.to_owned(), block_rlp, witness, w.keys).map_err(|source| LoadError::Block {
        path: block_path,
        source,
    })
}
