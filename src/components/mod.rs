//! The page's components, one concern each.

pub mod chart;
pub mod cluster;
pub mod cluster_canvas;
pub mod console;
pub mod control;
pub mod control_plane;
pub mod detail;
pub mod editor;
pub mod events;
pub mod header;
pub mod lessons;
pub mod loop_diagram;
pub mod share;
pub mod sparkline;
pub mod timeline;
