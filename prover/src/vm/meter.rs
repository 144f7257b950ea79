//! Metered execution: the figures a prover pays for, without proving.
//!
//! OpenVM's metered interpreter runs without committing the program for a prover (the SDK's
//! `execute_metered` does, which costs minutes): only the app proving key (~0.2 s) is
//! generated. For each segment, with `h` the unpadded trace height of an AIR:
//! - main-trace cells = Σ h × main width;
//! - memory bytes = the proving-memory estimate the segmentation itself uses
//!   (`ProvingMemoryConfig::estimate`), fed with the **unpadded** counts: main cells of AIRs with
//!   and without next-row rotation (Σ h × total width), interaction slots (Σ h × interactions)
//!   and constraint-evaluation buffers (Σ h × buffer size). This is OpenVM's own
//!   `metered_memory_unpadded_bytes`; padding to powers of two is excluded from both figures.

use openvm_sdk::openvm_circuit::arch::VirtualMachine;
use openvm_sdk::openvm_circuit::system::memory::merkle::public_values::extract_public_values;
use openvm_stark_sdk::config::baby_bear_poseidon2::BabyBearPoseidon2CpuEngine;

use super::segments::{SegmentEnd, SegmentEnds};
use super::{vm_err, Vm, VmError};

/// Metering runs on the CPU whatever engine proves (the `cuda` feature swaps the SDK's).
type MeterEngine = BabyBearPoseidon2CpuEngine;

/// One segment's metered figures.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SegmentStats {
    /// Instructions executed.
    pub instructions: u64,
    /// Unpadded main-trace cells.
    pub main_cells: u64,
    /// Unpadded proving-memory estimate, bytes.
    pub memory_bytes: u64,
    /// The limit that ended it.
    pub end: SegmentEnd,
}

/// One AIR (chip) over a whole run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AirStats {
    /// The AIR's name.
    pub name: String,
    /// Unpadded trace rows, all segments.
    pub rows: u64,
    /// Main-trace width.
    pub width: u64,
    /// Unpadded main-trace cells: rows × width.
    pub main_cells: u64,
    /// Share of the run's main cells.
    pub share: f64,
}

/// Metered execution's figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Metering {
    /// Instructions executed.
    pub instructions: u64,
    /// Unpadded main-trace cells, all segments.
    pub main_cells: u64,
    /// Unpadded proving-memory estimate, all segments, bytes.
    pub memory_bytes: u64,
    /// Per segment.
    pub segments: Vec<SegmentStats>,
    /// Per AIR with any rows, summed over segments, most cells first (their `main_cells` add
    /// up to the run's).
    pub airs: Vec<AirStats>,
}

/// The VM on the CPU engine, for metering and tracing.
pub(super) type Machine = VirtualMachine<MeterEngine, super::app::AppVmCpuBuilder>;

impl Vm {
    /// The virtual machine of this program's app proving key, on the CPU engine: built on first
    /// use (moving the key to the engine takes ~0.2 s), then the same one for every run.
    pub(super) fn machine(&self) -> Result<&Machine, VmError> {
        if let Some(machine) = self.machine.get() {
            return Ok(machine);
        }
        let built = self.build_machine()?;
        Ok(self.machine.get_or_init(|| built))
    }

    fn build_machine(&self) -> Result<Machine, VmError> {
        use openvm_stark_backend::prover::DeviceDataTransporter;
        use openvm_stark_backend::StarkEngine;
        let vm_pk = self.sdk.app_pk().app_vm_pk.clone();
        let engine = MeterEngine::new(vm_pk.vm_pk.params.clone());
        let d_pk = engine.device().transport_pk_to_device(&*vm_pk.vm_pk);
        VirtualMachine::new(
            engine,
            super::app::AppVmCpuBuilder,
            vm_pk.vm_config.clone(),
            d_pk,
        )
        .map_err(vm_err)
    }

    /// Metered execution; returns the public values and the figures.
    pub fn metered(&self, input: &[u8]) -> Result<(Vec<u8>, Metering), VmError> {
        self.metered_items(&[input])
    }

    /// [`Vm::metered`] with several input items, read by the guest in this order.
    pub fn metered_items(&self, items: &[&[u8]]) -> Result<(Vec<u8>, Metering), VmError> {
        use openvm_stark_backend::prover::ProverBackend;
        use openvm_stark_backend::StarkEngine;
        let vm_pk = self.sdk.app_pk().app_vm_pk.clone();
        let vm = self.machine()?;
        let ctx = vm.build_metered_ctx(&self.exe);
        let interpreter = vm.metered_interpreter(&self.exe).map_err(vm_err)?;
        let triggers = SegmentEnds::default();
        let (segments, final_state) = triggers
            .during(|| interpreter.execute_metered(Self::stdin_items(items), ctx))
            .map_err(super::execution_err)?;
        let ends = triggers.assign(segments.len());
        let public = extract_public_values(self.public_values, &final_state.memory.memory);

        let per_air = &vm_pk.vm_pk.per_air;
        let memory = vm.engine.proving_memory_config();
        let mut stats = Vec::with_capacity(segments.len());
        let mut air_rows = vec![0u64; per_air.len()];
        for (segment, end) in segments.iter().zip(ends) {
            let (mut main, mut with_rot, mut no_rot, mut interactions, mut buffers) =
                (0u64, 0, 0, 0, 0);
            for (i, &h) in segment.trace_heights.iter().enumerate() {
                let (h, pk) = (h as usize, &per_air[i]);
                air_rows[i] += h as u64;
                main += (h * pk.vk.params.width.main_width()) as u64;
                let cells = h * pk.vk.params.width.total_width();
                if pk.vk.params.need_rot {
                    with_rot += cells;
                } else {
                    no_rot += cells;
                }
                interactions += h * pk.vk.symbolic_constraints.interactions.len();
                buffers += h * <<MeterEngine as StarkEngine>::PB as ProverBackend>::constraint_eval_buffer_size(&vm.pk().per_air[i]);
            }
            let estimate = memory.estimate(
                openvm_stark_backend::memory_metering::ProvingMemoryCounts::new(
                    with_rot,
                    no_rot,
                    interactions,
                    buffers,
                ),
            );
            stats.push(SegmentStats {
                instructions: segment.num_insns,
                main_cells: main,
                memory_bytes: estimate.total as u64,
                end,
            });
        }
        let main_cells: u64 = stats.iter().map(|s| s.main_cells).sum();
        let mut airs: Vec<AirStats> = per_air
            .iter()
            .zip(air_rows)
            .filter(|(_, rows)| *rows > 0)
            .map(|(pk, rows)| {
                let width = pk.vk.params.width.main_width() as u64;
                AirStats {
                    name: pk.air_name.clone(),
                    rows,
                    width,
                    main_cells: rows * width,
                    share: (rows * width) as f64 / main_cells.max(1) as f64,
                }
            })
            .collect();
        airs.sort_by(|a, b| b.main_cells.cmp(&a.main_cells).then(a.name.cmp(&b.name)));
        let metering = Metering {
            instructions: stats.iter().map(|s| s.instructions).sum(),
            main_cells,
            memory_bytes: stats.iter().map(|s| s.memory_bytes).sum(),
            segments: stats,
            airs,
        };
        Ok((public, metering))
    }
}
