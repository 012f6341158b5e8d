//! PLACEHOLDER: filled in by the kubectl work.

use super::args::Args;
use super::{Command, Input, Output};
use crate::sim::Sim;

pub const COMMAND: Command = Command { name: "top", summary: "", usage: "", flags: &[], run: placeholder };

fn placeholder(_: &mut Sim, _: &Args, _: &Input) -> Output {
    Output::error("not yet built")
}
