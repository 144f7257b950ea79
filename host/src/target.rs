//! The first step of every block command: the command line's block and chain, resolved once.
//!
//! [`Target`] is what the user names (a block, where its files are, an archive node to fetch
//! it from, a chain config); [`Target::resolve`] turns it into a [`Resolved`] block: its files
//! found (or fetched and validated), loaded, and the one chain config it is validated under,
//! looked up beside the files it was actually loaded from. Every later step (native validation,
//! the guest's input, the VM, the proof, the report) takes the resolved value and computes none
//! of it again.

use std::path::{Path, PathBuf};

use clap::Args;
use program::ChainConfig;

use chaindata::blocks::{self, BlockData, LoadError, MissingBlock, DEFAULT_BLOCK};
use chaindata::chain::{self, ChainError};
use fetch::{self, FetchError, FetchOptions, FetchReport};

/// Which block, and where its files are.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// Block number or name (reads `<BLOCK>.block.rlp` and `<BLOCK>.witness.json`). Default:
    /// the project's generated devnet block.
    #[arg(long, default_value = DEFAULT_BLOCK)]
    pub block: String,
    /// Directory holding the block files. Default: `blocks/`, then `blocks/cache/`.
    #[arg(long)]
    pub blocks_dir: Option<PathBuf>,
    /// An archive node's JSON-RPC URL: fetch the block first when its files are missing.
    #[arg(long)]
    pub rpc_url: Option<String>,
    /// Genesis-style chain config (JSON). Default: `<BLOCK>.chain.json` beside the block
    /// files if present, else Ethereum mainnet.
    #[arg(long)]
    pub chain: Option<PathBuf>,
}

/// A block ready to validate: its data and the chain config it runs under.
#[derive(Debug)]
pub struct Resolved {
    /// The directory its files are in.
    pub dir: PathBuf,
    /// The block and its witness, loaded.
    pub data: BlockData,
    /// The chain config.
    pub chain: ChainConfig,
    /// How it was fetched, when its files were missing and a node served them.
    pub fetched: Option<FetchReport>,
}

/// Why a block could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// Not on disk, and no URL to fetch from.
    #[error(transparent)]
    Missing(#[from] MissingBlock),
    /// Not on disk, and not a block number a node could serve.
    #[error("{0}; only numbered blocks can be fetched")]
    NotANumber(MissingBlock),
    /// Fetching failed.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// A block file is unreadable or malformed.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The chain config is unreadable or invalid.
    #[error(transparent)]
    Chain(#[from] ChainError),
}

impl Target {
    /// Block `id` in `dir`, with `<id>.chain.json` beside it or mainnet, or `chain` if given.
    pub fn on_disk(dir: &Path, id: &str, chain: Option<&Path>) -> Self {
        Self {
            block: id.to_owned(),
            blocks_dir: Some(dir.to_owned()),
            rpc_url: None,
            chain: chain.map(Path::to_owned),
        }
    }

    /// The directory a fetched block is written to: `--blocks-dir`, else `blocks/cache/`.
    pub fn fetch_dir(&self) -> PathBuf {
        self.blocks_dir.clone().unwrap_or_else(blocks::cache_dir)
    }

    /// Finds the block's files (fetching them first when they are missing and a URL is
    /// given), reads the chain config for the directory they are in, and loads the block.
    pub fn resolve(&self, options: FetchOptions) -> Result<Resolved, ResolveError> {
        let dirs = match &self.blocks_dir {
            Some(dir) => vec![dir.clone()],
            None => blocks::default_dirs().to_vec(),
        };
        let id = &self.block;
        match blocks::locate(&dirs, id) {
            Ok(dir) => {
                let chain = chain::for_block(&dir, id, self.chain.as_deref())?;
                let data = blocks::load(&dir, id)?;
                Ok(Resolved {
                    dir,
                    data,
                    chain,
                    fetched: None,
                })
            }
            Err(missing) => {
                let Some(url) = &self.rpc_url else {
                    return Err(missing.into());
                };
                let number = id.parse().map_err(|_| ResolveError::NotANumber(missing))?;
                let dir = self.fetch_dir();
                let chain = chain::for_block(&dir, id, self.chain.as_deref())?;
                eprintln!("block {id}: its files are missing; fetching it from {url}");
                let fetched = fetch::fetch(url, number, &dir, &chain, options)?;
                Ok(Resolved {
                    dir,
                    data: fetched.data,
                    chain,
                    fetched: Some(fetched.report),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy_block(id: &str, to: &Path, with_chain: bool) {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
        std::fs::create_dir_all(to).unwrap();
        let mut names = vec![format!("{id}.block.rlp"), format!("{id}.witness.json")];
        if with_chain {
            names.push(format!("{id}.chain.json"));
        }
        for name in names {
            std::fs::copy(from.join(&name), to.join(&name)).unwrap();
        }
    }

    /// The chain config is read once, beside the files the block was loaded from: a directory
    /// without `<id>.chain.json` means mainnet, one with it that chain, and `--chain` wins.
    #[test]
    fn the_chain_is_looked_up_where_the_block_was_found() {
        let root = std::env::temp_dir().join(format!("target-resolve-{}", std::process::id()));
        let (bare, beside) = (root.join("bare"), root.join("beside"));
        copy_block("devnet-small", &bare, false);
        copy_block("devnet-small", &beside, true);
        let devnet = chain::from_file(&beside.join("devnet-small.chain.json")).unwrap();
        assert_ne!(devnet.digest(), ChainConfig::mainnet().digest());

        let resolve = |target: Target| target.resolve(FetchOptions::default()).unwrap();
        let found = resolve(Target::on_disk(&bare, "devnet-small", None));
        assert_eq!(
            (found.dir.as_path(), found.chain.digest()),
            (bare.as_path(), ChainConfig::mainnet().digest())
        );
        assert!(found.fetched.is_none());
        let found = resolve(Target::on_disk(&beside, "devnet-small", None));
        assert_eq!(found.chain.digest(), devnet.digest());
        let chain_file = beside.join("devnet-small.chain.json");
        let found = resolve(Target::on_disk(&bare, "devnet-small", Some(&chain_file)));
        assert_eq!(found.chain.digest(), devnet.digest());
        // The header is decoded once, on loading.
        assert_eq!(found.data.header.number, 1);
        assert_eq!(found.data.block_hash(), found.data.header.hash_slow());

        // Missing files, no URL: the missing files are named; an unreadable chain file too.
        match Target::on_disk(&root, "devnet-small", None).resolve(FetchOptions::default()) {
            Err(ResolveError::Missing(missing)) => assert_eq!(missing.missing.len(), 2),
            other => panic!("{other:?}"),
        }
        let bad = root.join("bad.chain.json");
        std::fs::write(&bad, b"{").unwrap();
        match Target::on_disk(&bare, "devnet-small", Some(&bad)).resolve(FetchOptions::default()) {
            Err(ResolveError::Chain(e)) => assert!(e.to_string().contains("bad.chain.json"), "{e}"),
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
