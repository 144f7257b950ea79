//! The fuzz targets' shared code: the native reference a standard input's result is held to
//! (also included by the mutation test, `tests/tests/standard_io/mutation.rs`).

pub mod reference;
