//! The task graph of one job: segment proofs, then OpenVM's aggregation tree, node by node.
//!
//! The tree is the one `AggProver::prove_vm` builds in one call (openvm-sdk 2.0.2,
//! `prover/agg.rs`), cut into one task per node so that its nodes run on different machines:
//! - **leaf** nodes verify `num_children_leaf` (4) consecutive app proofs each
//!   (`leaf_prover`, child kind `App`);
//! - **internal** layer 0 (`internal_for_leaf_prover`, `Standard`) takes
//!   `num_children_internal` (3) leaf proofs per node; layer 1 (`internal_recursive_prover`,
//!   `Standard`) as many of those; every further layer (`RecursiveSelf`) until one proof is left;
//! - **wrap**: one-child internal-recursive proofs of that one until its shape settles
//!   (`AggProver::wrap_proof`, [`prover::proof::agg::finish`]), which
//!   with the last segment's public-values proof is the run's `VmStarkProof`.
//!
//! The chunking is `prove_vm`'s exactly (`chunks(n)` in order), so the cluster's proof has the
//! same shape as `host prove`'s and verifies against the same baseline.

use serde::{Deserialize, Serialize};

/// A stage of a job, as `status` groups its tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Stage {
    /// App proofs of segments.
    Segments,
    /// Leaf aggregation nodes.
    Leaves,
    /// Internal aggregation nodes.
    Internal,
    /// The final wrap.
    Wrap,
    /// A test job's cheap tasks (`probe`), run by the same worker loop.
    Probe,
}

impl Stage {
    /// The name stored in the database.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Segments => "segments",
            Stage::Leaves => "leaves",
            Stage::Internal => "internal",
            Stage::Wrap => "wrap",
            Stage::Probe => "probe",
        }
    }

    /// The stage named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Stage::Segments,
            Stage::Leaves,
            Stage::Internal,
            Stage::Wrap,
            Stage::Probe,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

/// Which verifying key an internal node's children are checked against (openvm-continuations'
/// `ChildVkKind`, which is not serialisable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Child {
    /// App proofs (leaf nodes).
    App,
    /// Proofs of the layer below, another circuit.
    Standard,
    /// Proofs of this same circuit.
    RecursiveSelf,
}

/// What a task does, stored with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Work {
    /// App proofs of segments `first..first + count`.
    Segments {
        /// The first segment.
        first: usize,
        /// How many.
        count: usize,
    },
    /// An aggregation node over its dependencies' proofs, in order.
    Node {
        /// The circuit: 0 leaf, 1 internal-for-leaf, 2 and above internal-recursive.
        circuit: u8,
        /// The children's verifying key.
        child: Child,
    },
    /// The final wrap: its dependencies are the root node and the last segment task.
    Wrap,
    /// A test task: hashes its dependencies' artifacts after `sleep_ms`; `fail` makes it fail.
    Probe {
        /// How long it works.
        sleep_ms: u64,
        /// Fail every attempt.
        fail: bool,
    },
}

/// One task of a planned graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPlan {
    /// Its stage.
    pub stage: Stage,
    /// Its layer within the stage (internal layers count from 0).
    pub layer: usize,
    /// Its index within the layer.
    pub index: usize,
    /// What it does.
    pub work: Work,
    /// The tasks it needs, as indices into the plan, in the order their artifacts are used.
    pub deps: Vec<usize>,
}

/// The shape of the aggregation tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeShape {
    /// Segments per segment task.
    pub segments_per_task: usize,
    /// App proofs per leaf node (OpenVM's `num_children_leaf`).
    pub leaf_children: usize,
    /// Proofs per internal node (OpenVM's `num_children_internal`).
    pub internal_children: usize,
}

impl TreeShape {
    /// One segment per task and OpenVM 2.0.2's default tree (4 per leaf, 3 per internal node).
    pub fn openvm_default() -> Self {
        Self {
            segments_per_task: 1,
            leaf_children: openvm_sdk::config::MAX_NUM_CHILDREN_LEAF,
            internal_children: openvm_sdk::config::MAX_NUM_CHILDREN_INTERNAL,
        }
    }

    /// A tree of `leaf_children` app proofs per leaf and `internal_children` proofs per
    /// internal node. The aggregation circuits verify up to OpenVM's maxima (4 and 3) and any
    /// fewer children (as `prove_vm`'s last chunk of a layer has), under the same keys, so the
    /// proof verifies against the same baseline. Fewer children make more, cheaper nodes per
    /// layer (more machines busy at once) and a deeper tree. An internal node takes at least
    /// two, or the tree never narrows.
    pub fn new(
        segments_per_task: usize,
        leaf_children: usize,
        internal_children: usize,
    ) -> Result<Self, ShapeError> {
        let leaf_max = openvm_sdk::config::MAX_NUM_CHILDREN_LEAF;
        let internal_max = openvm_sdk::config::MAX_NUM_CHILDREN_INTERNAL;
        if segments_per_task == 0 {
            return Err(ShapeError::SegmentsPerTask);
        }
        if !(1..=leaf_max).contains(&leaf_children) {
            return Err(ShapeError::LeafChildren(leaf_children, leaf_max));
        }
        if !(2..=internal_max).contains(&internal_children) {
            return Err(ShapeError::InternalChildren(
                internal_children,
                internal_max,
            ));
        }
        Ok(Self {
            segments_per_task,
            leaf_children,
            internal_children,
        })
    }
}

/// A tree shape the aggregation circuits cannot prove.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// No segments per task.
    #[error("segments per task must be at least 1")]
    SegmentsPerTask,
    /// App proofs per leaf out of range.
    #[error("{0} app proofs per leaf: the leaf circuit takes 1 to {1}")]
    LeafChildren(usize, usize),
    /// Proofs per internal node out of range.
    #[error("{0} proofs per internal node: the internal circuits take 2 to {1}")]
    InternalChildren(usize, usize),
}

/// The whole graph for a run of `segments` segments: segment tasks, then the tree, then the
/// wrap (last).
pub fn plan(segments: usize, shape: TreeShape) -> Vec<TaskPlan> {
    assert!(segments > 0 && shape.segments_per_task > 0);
    assert!(shape.leaf_children > 0 && shape.internal_children > 1);
    let mut tasks = Vec::new();
    // Segment tasks, and for each segment the task that proves it.
    let mut prover_of = Vec::with_capacity(segments);
    for (index, first) in (0..segments).step_by(shape.segments_per_task).enumerate() {
        let count = shape.segments_per_task.min(segments - first);
        prover_of.extend(std::iter::repeat_n(tasks.len(), count));
        tasks.push(TaskPlan {
            stage: Stage::Segments,
            layer: 0,
            index,
            work: Work::Segments { first, count },
            deps: Vec::new(),
        });
    }
    let last_segment_task = tasks.len() - 1;
    // Leaves: each needs the tasks proving its segments (a task once, in order).
    let mut layer: Vec<usize> = Vec::new();
    for (index, chunk) in (0..segments)
        .collect::<Vec<_>>()
        .chunks(shape.leaf_children)
        .enumerate()
    {
        let mut deps: Vec<usize> = chunk.iter().map(|&s| prover_of[s]).collect();
        deps.dedup();
        layer.push(tasks.len());
        tasks.push(TaskPlan {
            stage: Stage::Leaves,
            layer: 0,
            index,
            work: Work::Node {
                circuit: 0,
                child: Child::App,
            },
            deps,
        });
    }
    // Internal layers: internal-for-leaf, one internal-recursive layer over it, then
    // recursive layers until one proof remains.
    let mut depth = 0;
    loop {
        let (circuit, child) = match depth {
            0 => (1, Child::Standard),
            1 => (2, Child::Standard),
            _ => (2, Child::RecursiveSelf),
        };
        if depth >= 2 && layer.len() == 1 {
            break;
        }
        let mut next = Vec::new();
        for (index, chunk) in layer.chunks(shape.internal_children).enumerate() {
            next.push(tasks.len());
            tasks.push(TaskPlan {
                stage: Stage::Internal,
                layer: depth,
                index,
                work: Work::Node { circuit, child },
                deps: chunk.to_vec(),
            });
        }
        layer = next;
        depth += 1;
    }
    tasks.push(TaskPlan {
        stage: Stage::Wrap,
        layer: 0,
        index: 0,
        work: Work::Wrap,
        deps: vec![layer[0], last_segment_task],
    });
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(plan: &[TaskPlan], stage: Stage) -> usize {
        plan.iter().filter(|t| t.stage == stage).count()
    }

    /// Internal nodes in each of the first four layers.
    fn internal_layers(plan: &[TaskPlan]) -> Vec<usize> {
        (0..4)
            .map(|l| {
                plan.iter()
                    .filter(|t| t.stage == Stage::Internal && t.layer == l)
                    .count()
            })
            .collect()
    }

    #[test]
    fn the_graph_is_prove_vms_tree() {
        // 24171384 at the CPU default: 43 segments, 11 leaves of up to 4, then 4, 2, 1 internal
        // nodes (as its join measured: internal_for_leaf, then three recursive layers), the wrap.
        let plan = plan(43, TreeShape::openvm_default());
        assert_eq!(count(&plan, Stage::Segments), 43);
        assert_eq!(count(&plan, Stage::Leaves), 11);
        let internal = internal_layers(&plan);
        assert_eq!(internal, vec![4, 2, 1, 0]);
        assert_eq!(count(&plan, Stage::Wrap), 1);
        // Every dependency comes before its task, and every task but the wrap is needed once.
        let mut needed = vec![0; plan.len()];
        for (i, task) in plan.iter().enumerate() {
            for &d in &task.deps {
                assert!(d < i);
                needed[d] += 1;
            }
        }
        let wrap = plan.len() - 1;
        assert_eq!(plan[wrap].deps[1], 42, "the wrap reads the last segment");
        assert!(needed[..42].iter().all(|&n| n == 1));
        assert_eq!(needed[42], 2);
        assert_eq!(needed[wrap], 0);
        assert_eq!(plan[43].deps, vec![0, 1, 2, 3]);
        assert_eq!(plan[53].deps, vec![40, 41, 42]);
    }

    #[test]
    fn a_narrow_tree_is_deeper_and_its_root_joins_recursive_proofs() {
        // One app proof per leaf, two proofs per internal node: 5 segments reach the shape of
        // 24171384's 43 at the default, a root that joins two recursive proofs.
        let shape = TreeShape::new(1, 1, 2).unwrap();
        let plan = plan(5, shape);
        assert_eq!(count(&plan, Stage::Leaves), 5);
        let layers = internal_layers(&plan);
        assert_eq!(layers, vec![3, 2, 1, 0]);
        let root = &plan[plan.len() - 2];
        assert_eq!(root.layer, 2);
        assert_eq!(
            root.work,
            Work::Node {
                circuit: 2,
                child: Child::RecursiveSelf
            }
        );
        assert_eq!(root.deps.len(), 2);
    }

    #[test]
    fn a_shape_the_circuits_cannot_prove_is_refused() {
        assert_eq!(TreeShape::new(1, 4, 3), Ok(TreeShape::openvm_default()));
        assert_eq!(TreeShape::new(0, 4, 3), Err(ShapeError::SegmentsPerTask));
        assert_eq!(TreeShape::new(1, 0, 3), Err(ShapeError::LeafChildren(0, 4)));
        assert_eq!(TreeShape::new(1, 5, 3), Err(ShapeError::LeafChildren(5, 4)));
        // One child per internal node would never narrow the tree.
        assert_eq!(
            TreeShape::new(1, 4, 1),
            Err(ShapeError::InternalChildren(1, 3))
        );
        assert_eq!(
            TreeShape::new(1, 4, 4),
            Err(ShapeError::InternalChildren(4, 3))
        );
    }

    #[test]
    fn one_segment_still_has_every_layer() {
        // prove_vm runs internal-for-leaf and one recursive layer even over one proof.
        let plan = plan(1, TreeShape::openvm_default());
        let stages: Vec<(Stage, usize)> = plan.iter().map(|t| (t.stage, t.layer)).collect();
        assert_eq!(
            stages,
            vec![
                (Stage::Segments, 0),
                (Stage::Leaves, 0),
                (Stage::Internal, 0),
                (Stage::Internal, 1),
                (Stage::Wrap, 0)
            ]
        );
    }

    #[test]
    fn grouped_segments_are_one_dependency_each() {
        let shape = TreeShape {
            segments_per_task: 3,
            ..TreeShape::openvm_default()
        };
        let plan = plan(7, shape);
        assert_eq!(count(&plan, Stage::Segments), 3);
        let leaves: Vec<&TaskPlan> = plan.iter().filter(|t| t.stage == Stage::Leaves).collect();
        assert_eq!(leaves[0].deps, vec![0, 1]);
        assert_eq!(leaves[1].deps, vec![1, 2]);
        assert_eq!(plan[0].work, Work::Segments { first: 0, count: 3 });
        assert_eq!(plan[2].work, Work::Segments { first: 6, count: 1 });
    }
}
