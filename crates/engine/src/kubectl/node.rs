//! PLACEHOLDER: filled in by the kubectl work.

use super::args::Args;
use super::{Command, Input, Output};
use crate::sim::Sim;

pub const CORDON: Command = Command { name: "cordon", summary: "", usage: "", flags: &[], run: placeholder };
pub const UNCORDON: Command = Command { name: "uncordon", summary: "", usage: "", flags: &[], run: placeholder };
pub const DRAIN: Command = Command { name: "drain", summary: "", usage: "", flags: &[], run: placeholder };
pub const TAINT: Command = Command { name: "taint", summary: "", usage: "", flags: &[], run: placeholder };

fn placeholder(_: &mut Sim, _: &Args, _: &Input) -> Output {
    Output::error("not yet built")
}
