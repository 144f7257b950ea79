//! What can go wrong fetching a block.

use std::path::PathBuf;
use std::time::Duration;

use program::ValidationError;

/// Why a block could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// An `eth_getProof` answer whose proof does not verify against the state root (or the
    /// account's storage root): a node that does not hash to its parent's reference, or a
    /// value (balance, nonce, slot) the proven leaf does not hold.
    #[error("eth_getProof at block {block}: the proof of {what} does not verify against root {root}: {reason}")]
    BadProof {
        /// The block whose state was asked for.
        block: u64,
        /// The account, or the account and slot.
        what: String,
        /// The root it was checked against.
        root: alloy_primitives::B256,
        /// What failed.
        reason: String,
    },
    /// The URL does not parse.
    #[error("invalid RPC URL `{url}`: {reason}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// Why.
        reason: String,
    },
    /// No connection could be made, after every retry.
    #[error("cannot reach {url} ({method}, {attempts} attempts): {reason}")]
    Unreachable {
        /// The node.
        url: String,
        /// The call that failed.
        method: &'static str,
        /// Attempts made.
        attempts: u32,
        /// The last error.
        reason: String,
    },
    /// The node did not answer in time, after every retry.
    #[error("{url} did not answer {method} within {timeout:?} ({attempts} attempts)")]
    Timeout {
        /// The node.
        url: String,
        /// The call.
        method: &'static str,
        /// The per-request timeout.
        timeout: Duration,
        /// Attempts made.
        attempts: u32,
    },
    /// The node does not serve this method (not an archive node, or `debug` not enabled).
    #[error(
        "{url} does not support {method}: {message} (an archive node with the debug API is needed)"
    )]
    MethodNotSupported {
        /// The node.
        url: String,
        /// The method.
        method: &'static str,
        /// The node's message.
        message: String,
    },
    /// The node does not have the block.
    #[error("block {block} not found at {url} ({method})")]
    BlockNotFound {
        /// The block number.
        block: u64,
        /// The node.
        url: String,
        /// The call that said so.
        method: &'static str,
    },
    /// Any other JSON-RPC error.
    #[error("{method} failed: error {code}: {message}")]
    Rpc {
        /// The call.
        method: &'static str,
        /// JSON-RPC error code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// An HTTP error status (after retries where it is worth retrying).
    #[error("{method}: HTTP {status} from {url}: {body}")]
    Http {
        /// The node.
        url: String,
        /// The call.
        method: &'static str,
        /// HTTP status.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The answer is not what the method returns.
    #[error("{method} returned an unusable answer: {reason}")]
    BadResponse {
        /// The call.
        method: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The block returned is not the block asked for, or does not hash to its own header hash.
    #[error("block {block}: {reason}")]
    WrongBlock {
        /// The block number asked for.
        block: u64,
        /// What is wrong.
        reason: String,
    },
    /// The witness (or the block) fails native validation: nothing was written.
    #[error("block {block} fetched from {url} does not validate against its witness (verdict: {}): {source}", source.verdict().name())]
    Invalid {
        /// The block number.
        block: u64,
        /// The node.
        url: String,
        /// The validation error.
        source: Box<ValidationError>,
    },
    /// Writing the files failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}
