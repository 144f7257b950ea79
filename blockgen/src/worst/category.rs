//! What a worst-case category is: a name, a group, and how its workload is built under a fork
//! for a block gas. Its own module so that both lists of categories ([`super::precompiles`],
//! [`super::categories`]) stand on it and neither on the other.

use super::{Workload, WorstError};
use crate::Fork;

/// One worst-case category.
#[derive(Clone, Copy)]
pub struct Category {
    /// Its name (`host gen --worst NAME`; the block is `worst-NAME`).
    pub name: &'static str,
    /// Its group: precompile, opcode, memory/calldata, state, code, other.
    pub group: &'static str,
    /// What its block does.
    pub about: &'static str,
    /// Its workload under a fork for a block gas.
    pub build: fn(Fork, u64) -> Result<Workload, WorstError>,
}
