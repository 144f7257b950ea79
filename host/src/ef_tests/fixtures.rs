//! Where blockchain-test fixtures come from: plain `.json` files, gzipped `.json.gz` files (as
//! `../shared/ef-tests-eest` keeps them), and `.tar.gz` archives (as execution-spec-tests
//! publishes its releases), read as they are: an archive is streamed entry by entry, never
//! unpacked to disk.
//!
//! Every fixture is named by a path: a file's own, or an archive entry's behind the archive's
//! (`fixtures.tar.gz/blockchain_tests/…/x.json`), so reports and the VM sample can name any case.
//! A case's JSON is read as [`CaseJson`].

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use alloy_primitives::{Address, Bytes, B256};
use chaindata::fixtures::GenesisAccount;
use serde::Deserialize;

/// One case as the fixture JSON holds it (unknown fields ignored).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CaseJson {
    pub network: String,
    #[serde(default)]
    pub config: serde_json::Value,
    pub pre: BTreeMap<Address, GenesisAccount>,
    #[serde(rename = "genesisRLP")]
    pub genesis_rlp: Bytes,
    pub blocks: Vec<BlockJson>,
    pub lastblockhash: B256,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BlockJson {
    /// Absent or not hex in a few invalid-RLP cases: kept as text and decoded here.
    #[serde(default)]
    pub rlp: serde_json::Value,
    pub expect_exception: Option<String>,
    /// The block's standard input (EIP-8025), where the fixture carries it.
    pub stateless_input_bytes: Option<String>,
    /// The standard guest's expected result for it.
    pub stateless_output_bytes: Option<String>,
    /// Amsterdam: the block's access list (not in its RLP; the header holds its hash).
    pub block_access_list: Option<serde_json::Value>,
    /// An invalid block's fields as the filler wrote them (its access list among them).
    #[serde(rename = "rlp_decoded")]
    pub rlp_decoded: Option<serde_json::Value>,
}

/// Whether `path` names an archive of fixtures.
pub fn is_archive(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

/// Whether `path` names one fixture file (plain or gzipped JSON).
pub fn is_fixture_file(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".json") || name.ends_with(".json.gz")
}

/// Every fixture source under `paths` (files as given, directories walked): JSON files,
/// gzipped JSON files and archives, sorted.
pub fn discover(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = paths.to_vec();
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                stack.push(entry?.path());
            }
        } else if is_fixture_file(&path) || is_archive(&path) || paths.contains(&path) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn gunzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out)?;
    Ok(out)
}

/// The bytes of one fixture file, un-gzipped when its name ends in `.gz`.
pub fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    if path.extension().is_some_and(|e| e == "gz") {
        gunzip(&bytes).map_err(|e| format!("not gzip: {e}"))
    } else {
        Ok(bytes)
    }
}

/// Calls `each(name, bytes)` for every fixture of `source`: the file itself, or each JSON entry
/// of an archive (entries `.json` or `.json.gz`, in archive order; other entries skipped). An
/// unreadable source or archive entry is an error naming it.
pub fn for_each(
    source: &Path,
    each: &mut dyn FnMut(PathBuf, Vec<u8>),
) -> Result<(), (PathBuf, String)> {
    if !is_archive(source) {
        let bytes = read_file(source).map_err(|e| (source.to_owned(), e))?;
        each(source.to_owned(), bytes);
        return Ok(());
    }
    let fail = |e: std::io::Error| (source.to_owned(), format!("archive: {e}"));
    let file = std::fs::File::open(source).map_err(fail)?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries().map_err(fail)? {
        let mut entry = entry.map_err(fail)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let inner = entry.path().map_err(fail)?.into_owned();
        if !is_fixture_file(&inner) {
            continue;
        }
        let name = source.join(&inner);
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| (name.clone(), format!("archive entry: {e}")))?;
        if inner.extension().is_some_and(|e| e == "gz") {
            bytes = gunzip(&bytes).map_err(|e| (name.clone(), format!("not gzip: {e}")))?;
        }
        each(name, bytes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One fixture as a plain file, gzipped, and inside a `.tar.gz` (plain and gzipped entries,
    /// beside a README the reader skips): the same bytes each way, named by file or by entry.
    #[test]
    fn plain_gzipped_and_archived_fixtures_read_alike() {
        use flate2::{write::GzEncoder, Compression};
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("ef-fixtures-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let json = br#"{"case": {}}"#.to_vec();
        let gz = |bytes: &[u8]| {
            let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
            encoder.write_all(bytes).unwrap();
            encoder.finish().unwrap()
        };
        std::fs::write(dir.join("a.json"), &json).unwrap();
        std::fs::write(dir.join("b.json.gz"), gz(&json)).unwrap();
        let mut tar = tar::Builder::new(Vec::new());
        for (name, bytes) in [
            ("t/c.json", json.clone()),
            ("t/d.json.gz", gz(&json)),
            ("t/README.md", b"skip".to_vec()),
        ] {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, name, bytes.as_slice())
                .unwrap();
        }
        std::fs::write(dir.join("e.tar.gz"), gz(&tar.into_inner().unwrap())).unwrap();
        std::fs::write(dir.join("notes.txt"), b"not a fixture").unwrap();

        let sources = discover(std::slice::from_ref(&dir)).unwrap();
        let names: Vec<_> = sources
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.json", "b.json.gz", "e.tar.gz"]);
        let mut seen = Vec::new();
        for source in &sources {
            for_each(source, &mut |name, bytes| seen.push((name, bytes))).unwrap();
        }
        let expected = [
            dir.join("a.json"),
            dir.join("b.json.gz"),
            dir.join("e.tar.gz/t/c.json"),
            dir.join("e.tar.gz/t/d.json.gz"),
        ];
        assert_eq!(
            seen.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
            expected
        );
        assert!(seen.iter().all(|(_, bytes)| *bytes == json));
        // A corrupt gzip is an error naming the file.
        std::fs::write(dir.join("bad.json.gz"), b"not gzip").unwrap();
        let err = for_each(&dir.join("bad.json.gz"), &mut |_, _| {}).unwrap_err();
        assert_eq!(err.0, dir.join("bad.json.gz"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
