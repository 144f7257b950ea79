//! Whether this host can prove on a GPU, asked before any prover is built.
//!
//! Why: in a `cuda` build, OpenVM's engine and trace generation assume a CUDA device and panic
//! without one, deep inside the first proof. A GPU build carried to a machine with no GPU, or
//! with a driver too old for its CUDA runtime, must say so in one line and stop instead
//! ([`check`]). The runtime (`libcudart`, which the build links) loads the driver itself, so
//! asking it works where no driver is installed at all.

/// What [`check`] found: the CUDA devices and the versions of the driver and the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gpu {
    /// CUDA devices visible to this process.
    pub devices: u32,
    /// The driver's CUDA version (e.g. 13000 for 13.0).
    pub driver: i32,
    /// The runtime's CUDA version.
    pub runtime: i32,
}

/// Why no GPU is usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    /// The CUDA runtime answered an error.
    #[error("no usable CUDA device: {call} returned error {code} ({text})")]
    Cuda {
        /// The runtime call.
        call: &'static str,
        /// Its `cudaError_t`.
        code: i32,
        /// The runtime's name for it.
        text: String,
    },
    /// The runtime sees no device.
    #[error("no CUDA device: the CUDA runtime sees none")]
    NoDevice,
}

/// The GPU this build proves on. Without the `cuda` feature: `Ok(None)` (the CPU prover).
pub fn check() -> Result<Option<Gpu>, GpuError> {
    imp::check()
}

#[cfg(not(feature = "cuda"))]
mod imp {
    pub fn check() -> Result<Option<super::Gpu>, super::GpuError> {
        Ok(None)
    }
}

#[cfg(feature = "cuda")]
mod imp {
    use std::ffi::{c_char, CStr};

    use super::{Gpu, GpuError};

    #[link(name = "cudart")]
    extern "C" {
        fn cudaGetDeviceCount(count: *mut i32) -> i32;
        fn cudaDriverGetVersion(version: *mut i32) -> i32;
        fn cudaRuntimeGetVersion(version: *mut i32) -> i32;
        fn cudaGetErrorString(error: i32) -> *const c_char;
    }

    fn call(name: &'static str, f: unsafe extern "C" fn(*mut i32) -> i32) -> Result<i32, GpuError> {
        let mut out = 0;
        // SAFETY: each of the three runtime calls passed here writes one `int` through its
        // pointer and keeps no reference to it; `out` outlives the call.
        let code = unsafe { f(&mut out) };
        if code == 0 {
            return Ok(out);
        }
        // SAFETY: `cudaGetErrorString` returns a pointer to a static NUL-terminated string for
        // any code (the runtime's "unrecognized error code" for unknown ones), never null.
        let text = unsafe { CStr::from_ptr(cudaGetErrorString(code)) };
        Err(GpuError::Cuda {
            call: name,
            code,
            text: text.to_string_lossy().into_owned(),
        })
    }

    pub fn check() -> Result<Option<Gpu>, GpuError> {
        let driver = call("cudaDriverGetVersion", cudaDriverGetVersion)?;
        let runtime = call("cudaRuntimeGetVersion", cudaRuntimeGetVersion)?;
        let devices = call("cudaGetDeviceCount", cudaGetDeviceCount)?;
        if devices <= 0 {
            return Err(GpuError::NoDevice);
        }
        Ok(Some(Gpu {
            devices: devices.unsigned_abs(),
            driver,
            runtime,
        }))
    }
}
