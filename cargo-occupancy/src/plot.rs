//! SVG graphs of sweeps, drawn with `plotters`' SVG backend (text stays SVG `<text>`, so no
//! font files are read or embedded).
//!
//! One chart per sweep, stacked: active warps per SM (left axis) and theoretical occupancy
//! (right axis) against the varied parameter, as a step line; the background is shaded by
//! the limiter of each run of points; the steps are dots, labelled with their value where
//! the label has room; the current configuration is a red point with its numbers in a box.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use occupancy_core::occupancy::{Occupancy, Resource};

use crate::sweep::{Parameter, Sweep, result_words};

/// Width of the image, pixels.
const WIDTH: u32 = 960;
/// Height of one chart, pixels.
const CHART_HEIGHT: u32 = 400;
/// Height of a title line over the charts, pixels.
const TITLE_LINE: u32 = 24;
/// Height of the caption and legend strip over each chart, pixels.
const HEADER_HEIGHT: u32 = 52;

/// Room kept around a label, pixels.
const PAD: i32 = 3;

/// Shading of runs that no block fits.
const NO_FIT: RGBColor = RGBColor(150, 150, 150);
/// The step line.
const LINE: RGBColor = RGBColor(31, 31, 31);
/// The current configuration.
const CURRENT: RGBColor = RGBColor(214, 39, 40);

/// A colour per limiting resource.
const fn colour(r: Resource) -> RGBColor {
    match r {
        Resource::Warps => RGBColor(31, 119, 180),
        Resource::Registers => RGBColor(255, 127, 14),
        Resource::SharedMemory => RGBColor(44, 160, 44),
        Resource::Blocks => RGBColor(148, 103, 189),
        Resource::Barriers => RGBColor(140, 86, 75),
    }
}

/// The resource a run is shaded by: the swept parameter's own when it limits, else the
/// first limiter; `None` when no block fits.
fn shade(parameter: Parameter, occ: &Occupancy) -> Option<Resource> {
    if occ.blocks_per_sm == 0 {
        return None;
    }
    if occ.limiters.contains(parameter.resource()) {
        return Some(parameter.resource());
    }
    occ.limiters.iter().next()
}

/// The SVG text of the graphs of `sweeps`, under the title lines `titles`; `current` is the
/// configuration's occupancy (the red point).
pub fn svg(titles: &[String], sweeps: &[Sweep], current: &Occupancy) -> Result<String, String> {
    let mut out = String::new();
    let title_height = TITLE_LINE * titles.len() as u32 + 8;
    let height = title_height + CHART_HEIGHT * sweeps.len().max(1) as u32;
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, charts) = root.split_vertically(title_height);
        let style = TextStyle::from(("sans-serif", 17).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (i, line) in titles.iter().enumerate() {
            let y = 6 + (TITLE_LINE * i as u32) as i32;
            top.draw(&Text::new(
                line.as_str(),
                (WIDTH as i32 / 2, y),
                style.clone(),
            ))
            .map_err(|e| e.to_string())?;
        }
        let areas = charts.split_evenly((sweeps.len().max(1), 1));
        for (s, area) in sweeps.iter().zip(&areas) {
            chart(area, s, current).map_err(|e| format!("svg: {e}"))?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Converts a value of the parameter to the x axis (KiB for shared memory).
fn x_of(parameter: Parameter, value: u32) -> f64 {
    match parameter {
        Parameter::Smem => f64::from(value) / 1024.0,
        _ => f64::from(value),
    }
}

/// An entry of a chart's legend row.
enum Mark {
    /// A shaded limiter band.
    Band(RGBColor),
    /// The step line.
    Line,
    /// The current configuration.
    Point,
}

/// Estimated width in pixels of `text` drawn with a plotters font size of `size` (plotters
/// writes `font-size = size / 1.24` into the SVG): about 0.62 em per character in common
/// sans-serif fonts, bold included. The SVG viewer picks the font, so this only spaces
/// things out.
fn text_width(text: &str, size: f64) -> i32 {
    (text.chars().count() as f64 * size / 1.24 * 0.62).ceil() as i32
}

/// The caption and the legend row, drawn on the strip over a chart.
fn header<DB: DrawingBackend>(
    strip: &DrawingArea<DB, Shift>,
    caption: &str,
    items: &[(Mark, String)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, _) = strip.dim_in_pixel();
    let centre = TextStyle::from(("sans-serif", 16).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    strip.draw(&Text::new(caption, (w as i32 / 2, 4), centre))?;
    let label = TextStyle::from(("sans-serif", 13).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let (mut x, y) = (68, 38);
    for (mark, text) in items {
        match mark {
            Mark::Band(c) => strip.draw(&Rectangle::new(
                [(x, y - 6), (x + 14, y + 6)],
                c.mix(0.45).filled(),
            ))?,
            Mark::Line => strip.draw(&PathElement::new(
                [(x, y), (x + 14, y)],
                LINE.stroke_width(2),
            ))?,
            Mark::Point => strip.draw(&Circle::new((x + 7, y), 5, CURRENT.filled()))?,
        }
        strip.draw(&Text::new(text.as_str(), (x + 19, y), label.clone()))?;
        x += 19 + text_width(text, 13.0) + 22;
    }
    Ok(())
}

/// A rectangle in data coordinates: x from `x0` to `x1`, y from `y0` to `y1`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Area {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Area {
    fn overlaps(&self, o: &Area) -> bool {
        self.x0 <= o.x1 && o.x0 <= self.x1 && self.y0 <= o.y1 && o.y0 <= self.y1
    }
}

/// Places labels beside points of a plot so that they cover neither the plotted line nor
/// each other. Offsets and sizes are pixels (y down), points are data coordinates.
struct Placer {
    /// Data units per pixel, x and y.
    per_px: (f64, f64),
    /// The plot's data extent, from (0, 0).
    max: (f64, f64),
    /// What a label must not cover.
    taken: Vec<Area>,
}

impl Placer {
    /// The data area of a `size` box whose top-left corner is `offset` from `at`.
    fn area(&self, at: (f64, f64), offset: (i32, i32), size: (i32, i32)) -> Area {
        Area {
            x0: at.0 + f64::from(offset.0) * self.per_px.0,
            x1: at.0 + f64::from(offset.0 + size.0) * self.per_px.0,
            y0: at.1 - f64::from(offset.1 + size.1) * self.per_px.1,
            y1: at.1 - f64::from(offset.1) * self.per_px.1,
        }
    }

    fn inside(&self, a: &Area) -> bool {
        a.x0 >= 0.0 && a.x1 <= self.max.0 && a.y0 >= 0.0 && a.y1 <= self.max.1
    }

    /// The first of `offsets` (top-left corners from `at`) where a `size` box lies inside the
    /// plot and covers nothing taken; the box is then taken.
    fn place(
        &mut self,
        at: (f64, f64),
        size: (i32, i32),
        offsets: &[(i32, i32)],
    ) -> Option<(i32, i32)> {
        let found = offsets.iter().copied().find(|&o| {
            let a = self.area(at, o, size);
            // A few pixels of room around the box.
            let room = self.area(
                at,
                (o.0 - PAD, o.1 - PAD),
                (size.0 + 2 * PAD, size.1 + 2 * PAD),
            );
            self.inside(&a) && !self.taken.iter().any(|t| t.overlaps(&room))
        })?;
        self.taken.push(self.area(at, found, size));
        Some(found)
    }

    /// Offsets around `at` for a `size` box: above, then below, a little farther each round;
    /// right of the point, left of it, or slid along to fit the plot.
    fn around(&self, at: (f64, f64), size: (i32, i32)) -> Vec<(i32, i32)> {
        let (w, h) = size;
        // The horizontal offsets that keep the box inside, at the two edges.
        let leftmost = (-at.0 / self.per_px.0).ceil() as i32;
        let rightmost = ((self.max.0 - at.0) / self.per_px.0).floor() as i32 - w;
        let xs = [
            12,
            -12 - w,
            -w / 2,
            rightmost.min(12),
            leftmost.max(-12 - w),
        ];
        let mut offsets = Vec::new();
        for gap in [10, 30, 55, 80, 110, 140] {
            for y in [-gap - h, gap] {
                offsets.extend(xs.iter().map(|&x| (x, y)));
            }
        }
        offsets
    }
}

/// Where the line from a point to its label box ends: the nearest point of the box edge
/// that faces the point (`corner` is the box's top-left offset from the point, pixels).
fn leader_end(corner: (i32, i32), size: (i32, i32)) -> (i32, i32) {
    let (x0, y0) = corner;
    let (w, h) = size;
    let y = if y0 > 0 { y0 } else { y0 + h };
    (0.clamp(x0, x0 + w), y)
}

/// The vertices of a polyline without repeated points and without the middle points of
/// straight horizontal or vertical runs (the SVG stays small; the picture is the same).
fn corners(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(points.len());
    for &pt in points {
        if out.last() == Some(&pt) {
            continue;
        }
        if let [.., a, b] = out.as_slice()
            && ((a.0 == b.0 && b.0 == pt.0) || (a.1 == b.1 && b.1 == pt.1))
        {
            out.pop();
        }
        out.push(pt);
    }
    out
}

fn chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &Sweep,
    current: &Occupancy,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let p = s.parameter;
    let max_warps = current.max_warps_per_sm;
    let last_value = s.points.last().map_or(s.limit, |pt| pt.value).max(s.limit);
    // Room on the right for the last step's label.
    let x_max = x_of(p, last_value) * 1.04;
    let y_max = f64::from(max_warps) * 1.12;
    let (caption, x_desc) = match p {
        Parameter::Block => ("Varying threads per block", "threads per block"),
        Parameter::Regs => ("Varying registers per thread", "registers per thread"),
        Parameter::Smem => (
            "Varying shared memory per block",
            "static + dynamic shared memory per block (KiB)",
        ),
    };

    // Limiter bands: each run covers (the previous point, its last point].
    let runs = s.runs();
    let lows: Vec<f64> = runs
        .iter()
        .map(|r| {
            let i = s.points.partition_point(|pt| pt.value < r.from);
            match i.checked_sub(1).and_then(|j| s.points.get(j)) {
                Some(prev) => x_of(p, prev.value),
                None => x_of(p, r.from.saturating_sub(s.step)),
            }
        })
        .collect();
    let shades: Vec<Option<Resource>> = runs.iter().map(|r| shade(p, &r.occupancy)).collect();
    let mut groups = shades.clone();
    groups.sort();
    groups.dedup();
    let mut items: Vec<(Mark, String)> = groups
        .iter()
        .map(|g| match g {
            Some(r) => (Mark::Band(colour(*r)), format!("limiter: {r}")),
            None => (Mark::Band(NO_FIT), "no block fits".to_owned()),
        })
        .collect();
    items.push((Mark::Line, "active warps per SM".to_owned()));
    items.push((Mark::Point, "current configuration".to_owned()));
    let (strip, plot) = area.split_vertically(HEADER_HEIGHT);
    header(&strip, caption, &items)?;

    let mut chart = ChartBuilder::on(&plot)
        .margin(8)
        .margin_right(16)
        .x_label_area_size(42)
        .y_label_area_size(56)
        .right_y_label_area_size(60)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)?
        .set_secondary_coord(0.0..x_max, 0.0..y_max / f64::from(max_warps) * 100.0);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(BLACK.mix(0.12))
        .y_labels(9)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .x_desc(x_desc)
        .y_desc("active warps per SM")
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_labels(7)
        .y_label_formatter(&|v| format!("{v:.0}%"))
        .y_desc("theoretical occupancy")
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;

    let band_top = f64::from(max_warps);
    chart.draw_series(
        runs.iter()
            .zip(&lows)
            .zip(&shades)
            .map(|((r, &lo), shade)| {
                let fill = shade.map_or(NO_FIT, colour);
                Rectangle::new(
                    [(lo, 0.0), (x_of(p, r.to), band_top)],
                    fill.mix(0.16).filled(),
                )
            }),
    )?;

    // The step line: a point holds its value over (the previous point, the point].
    let mut line: Vec<(f64, f64)> = Vec::with_capacity(s.points.len() * 2);
    for (i, pt) in s.points.iter().enumerate() {
        let warps = f64::from(pt.occupancy.active_warps_per_sm());
        let lo = match i.checked_sub(1) {
            Some(j) => x_of(p, s.points[j].value),
            None => x_of(p, pt.value.saturating_sub(s.step)),
        };
        line.push((lo, warps));
        line.push((x_of(p, pt.value), warps));
    }
    let line = corners(&line);
    chart.draw_series(LineSeries::new(line.iter().copied(), LINE.stroke_width(2)))?;

    // Labels cover neither the line nor each other.
    let (pw, ph) = chart.plotting_area().dim_in_pixel();
    let mut placer = Placer {
        per_px: (x_max / f64::from(pw.max(1)), y_max / f64::from(ph.max(1))),
        max: (x_max, y_max),
        taken: line
            .windows(2)
            .map(|seg| Area {
                x0: seg[0].0.min(seg[1].0),
                x1: seg[0].0.max(seg[1].0),
                y0: seg[0].1.min(seg[1].1),
                y1: seg[0].1.max(seg[1].1),
            })
            .collect(),
    };

    // The current configuration first: a red point, its numbers in a box beside it.
    let cx = x_of(p, s.current);
    let cy = f64::from(current.active_warps_per_sm());
    let label = format!(
        "current ({}): {}",
        p.value_text(s.current),
        result_words(current)
    );
    let size = 14.0;
    let (w, h) = (text_width(&label, size) + 10, 22);
    let offsets = placer.around((cx, cy), (w, h));
    let (x0, y0) = placer
        .place((cx, cy), (w, h), &offsets)
        .or_else(|| {
            // Nowhere free: the first place inside the plot, over the line.
            let inside = offsets
                .iter()
                .copied()
                .find(|&o| placer.inside(&placer.area((cx, cy), o, (w, h))));
            inside.or(offsets.first().copied())
        })
        .unwrap_or((12, -32));

    // Step dots, and their values where there is room.
    let steps = s.steps();
    let step_style = TextStyle::from(("sans-serif", 12).into_font())
        .color(&LINE)
        .pos(Pos::new(HPos::Left, VPos::Top));
    let mut step_marks = Vec::new();
    for &(value, _) in &steps {
        let Some(pt) = s.points.iter().find(|pt| pt.value == value) else {
            continue;
        };
        let at = (
            x_of(p, pt.value),
            f64::from(pt.occupancy.active_warps_per_sm()),
        );
        let text = match p {
            Parameter::Smem => format!("{} B", pt.value),
            _ => pt.value.to_string(),
        };
        let size = (text_width(&text, 12.0) + 2, 13);
        let (tw, th) = size;
        let placed = if pt.value == s.current {
            None
        } else {
            placer.place(
                at,
                size,
                &[
                    (-tw / 2, -5 - th),
                    (4, -3 - th),
                    (-4 - tw, -3 - th),
                    (4, 3),
                    (-4 - tw, 3),
                ],
            )
        };
        step_marks.push((at, placed.map(|o| (text, o))));
    }
    chart.draw_series(
        step_marks
            .iter()
            .map(|(at, _)| Circle::new(*at, 3, LINE.filled())),
    )?;
    chart.draw_series(step_marks.into_iter().filter_map(|(at, label)| {
        let (text, offset) = label?;
        Some(EmptyElement::at(at) + Text::new(text, offset, step_style.clone()))
    }))?;

    let text_style = TextStyle::from(("sans-serif", size).into_font().style(FontStyle::Bold))
        .color(&CURRENT)
        .pos(Pos::new(HPos::Left, VPos::Center));
    chart.draw_series(std::iter::once(
        EmptyElement::at((cx, cy))
            + PathElement::new(
                [(0, 0), leader_end((x0, y0), (w, h))],
                CURRENT.mix(0.6).stroke_width(1),
            )
            + Rectangle::new(
                [(x0, y0), (x0 + w, y0 + h)],
                ShapeStyle::from(WHITE.mix(0.9)).filled(),
            )
            + Rectangle::new(
                [(x0, y0), (x0 + w, y0 + h)],
                CURRENT.mix(0.6).stroke_width(1),
            )
            + Circle::new((0, 0), 7, CURRENT.filled())
            + Circle::new((0, 0), 7, WHITE.stroke_width(2))
            + Text::new(label, (x0 + 5, y0 + h / 2), text_style),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_drop_straight_middles() {
        let line = [
            (0.0, 8.0),
            (1.0, 8.0),
            (1.0, 8.0),
            (2.0, 8.0),
            (2.0, 6.0),
            (3.0, 6.0),
            (3.0, 4.0),
            (3.0, 2.0),
        ];
        assert_eq!(
            corners(&line),
            [(0.0, 8.0), (2.0, 8.0), (2.0, 6.0), (3.0, 6.0), (3.0, 2.0)]
        );
    }

    #[test]
    fn labels_go_where_nothing_is() {
        // A 100 x 100 plot at 1 unit per pixel; a point at (50, 50).
        let mut placer = Placer {
            per_px: (1.0, 1.0),
            max: (100.0, 100.0),
            taken: vec![Area {
                x0: 55.0,
                x1: 100.0,
                y0: 50.0,
                y1: 100.0,
            }],
        };
        let offsets = placer.around((50.0, 50.0), (20, 10));
        // Above right is taken: above left.
        assert_eq!(
            placer.place((50.0, 50.0), (20, 10), &offsets),
            Some((-32, -20))
        );
        // Now that is taken too; a second label goes elsewhere, never over the first.
        let second = placer.place((50.0, 50.0), (20, 10), &offsets).unwrap();
        assert_ne!(second, (-32, -20));
        let a = placer.area((50.0, 50.0), second, (20, 10));
        assert!(!a.overlaps(&placer.taken[1]) && !a.overlaps(&placer.taken[0]));
        // A box wider than either side of the point slides along to fit.
        let placer = Placer {
            per_px: (1.0, 1.0),
            max: (100.0, 100.0),
            taken: Vec::new(),
        };
        let offsets = placer.around((50.0, 50.0), (80, 10));
        let first = offsets
            .iter()
            .find(|&&o| placer.inside(&placer.area((50.0, 50.0), o, (80, 10))))
            .unwrap();
        assert_eq!(*first, (-40, -20));
        assert_eq!(leader_end(*first, (80, 10)), (0, -10));
    }
}
