//! A tiny SVG line of a queue's depth over the last simulated minutes.

use yew::prelude::*;

pub const WIDTH: f64 = 84.0;
pub const HEIGHT: f64 = 22.0;

/// Polyline points for `values` in a `WIDTH` x `HEIGHT` box, newest at the right; the y scale is the maximum
/// (at least 1).
pub fn points(values: &[u32], capacity: usize) -> String {
    let max = values.iter().copied().max().unwrap_or(0).max(1) as f64;
    let step = WIDTH / (capacity.max(2) - 1) as f64;
    let offset = capacity.saturating_sub(values.len()) as f64 * step;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            format!("{:.1},{:.1}", offset + i as f64 * step, HEIGHT - 1.0 - (*v as f64 / max) * (HEIGHT - 2.0))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The line of `values` (the last samples, oldest first) in a box with room for `capacity` samples.
pub fn sparkline(values: &[u32], capacity: usize) -> Html {
    let max = values.iter().copied().max().unwrap_or(0);
    let pts = points(values, capacity);
    html! {
        <svg class="spark" width={WIDTH.to_string()} height={HEIGHT.to_string()}
            viewBox={format!("0 0 {WIDTH} {HEIGHT}")} role="img"
            aria-label={format!("queue depth over the last {} simulated seconds, peak {max}", values.len())}>
            <title>{ format!("depth, last {} s (one sample per simulated second); peak {max}", values.len()) }</title>
            <line x1="0" y1={(HEIGHT - 1.0).to_string()} x2={WIDTH.to_string()} y2={(HEIGHT - 1.0).to_string()} class="spark-base" />
            <polyline points={pts} class="spark-line" />
            <text x={(WIDTH - 1.0).to_string()} y="8" class="spark-max" text-anchor="end">{ max }</text>
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_fill_from_the_right_and_scale_to_the_peak() {
        assert_eq!(points(&[], 10), "");
        let p = points(&[0, 4], 3);
        assert_eq!(p, "42.0,21.0 84.0,1.0");
    }
}
