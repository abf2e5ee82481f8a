//! `--output-format html`: one self-contained page for the people who fix
//! the export and never open a terminal. The run's verdict and counts, then
//! per file (a ZIP member is a file) a table and a bar chart of findings
//! per rule × column with their most common values, the first few findings
//! of each as samples (the source line with the cell's span marked, the
//! fix as before and after), and what each rule enforces and why, from the
//! registry and the format's table (what `explain` and `formats` print).
//!
//! Bounded whatever the number of findings: a file's findings are counted
//! into one group per rule × column (the values in the human fold's table
//! of [`fold::SLOTS`]) and only the first `samples` of each are kept; a
//! file's section is written when it ends, into a [`Spill`] (memory, then
//! a temporary file), since the page opens with the run's totals, known
//! only at the end. What is kept for the run is a line per file and a count
//! per rule.
//!
//! No request leaves the page: the style sheet and the script are inline,
//! the charts inline SVG, and a Content-Security-Policy allows nothing but
//! them, by hash (so no inline event handler either). Everything a file
//! gives is text ([`text`]).

mod digest;
mod text;

use super::fold::{self, thousands, Count, TopValues};
use super::model::{location, plural, summary_line, Failure, Report, Summary};
use super::spill::Spill;
use crate::diagnostic::{Applicability, Diagnostic, Severity, Snippet};
use crate::rules::{self, Rule};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::Arc;
use text::{attr, inline, prose, push, Mode};

/// Samples shown of each rule × column of a file unless `--max-diagnostics`
/// says otherwise.
pub(super) const SAMPLES: usize = 10;

/// Values listed per rule × column, as the human fold lists them.
const VALUES: usize = 3;

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// The findings of one rule on one column of a file.
struct Group {
    rule: &'static Rule,
    severity: Severity,
    column: Option<Arc<str>>,
    total: u64,
    safe_fixes: u64,
    unsafe_fixes: u64,
    values: TopValues,
    /// The first findings, up to the writer's `samples`.
    samples: Vec<Diagnostic>,
}

/// A file of the run, as the overview lists it.
struct FileLine {
    location: String,
    path: String,
    member: Option<String>,
    format: Option<String>,
    records: u64,
    /// Errors, warnings, infos.
    counts: [u64; 3],
}

/// A rule's findings over the run, by severity (error, warning, info).
#[derive(Default, Clone, Copy)]
struct RuleCount {
    counts: [u64; 3],
}

fn sev_index(s: Severity) -> usize {
    match s {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

/// Writes the HTML report.
pub(super) struct HtmlWriter<'w> {
    out: &'w mut dyn Write,
    samples: usize,
    /// The sections of the files ended so far.
    body: Spill,
    path: String,
    member: Option<String>,
    groups: Vec<Group>,
    index: HashMap<(&'static str, Severity, Option<Arc<str>>), usize>,
    /// The group of the last finding: a file's findings come in runs of
    /// one rule on one column, which then cost no hashing.
    last: Option<usize>,
    files: Vec<FileLine>,
    /// Per rule of [`rules::ALL`], by its index there.
    rules: Vec<RuleCount>,
}

impl<'w> HtmlWriter<'w> {
    /// A writer that shows the first `samples` findings of each rule ×
    /// column of a file.
    pub(super) fn new(out: &'w mut dyn Write, samples: usize) -> Self {
        HtmlWriter {
            out,
            samples,
            body: Spill::new(),
            path: String::new(),
            member: None,
            groups: Vec::new(),
            index: HashMap::new(),
            last: None,
            files: Vec::new(),
            rules: vec![RuleCount::default(); rules::ALL.len()],
        }
    }

    fn add(&mut self, d: &Diagnostic) {
        let same = |g: &Group| {
            std::ptr::eq(g.rule, d.rule) && g.severity == d.severity && g.column == d.column
        };
        let last = self.last.filter(|&k| self.groups.get(k).is_some_and(same));
        let key = || (d.rule.code, d.severity, d.column.clone());
        let k = match last.or_else(|| self.index.get(&key()).copied()) {
            Some(k) => k,
            None => {
                self.groups.push(Group {
                    rule: d.rule,
                    severity: d.severity,
                    column: d.column.clone(),
                    total: 0,
                    safe_fixes: 0,
                    unsafe_fixes: 0,
                    values: TopValues::default(),
                    samples: Vec::new(),
                });
                self.index.insert(key(), self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        self.last = Some(k);
        let g = &mut self.groups[k];
        g.total += 1;
        match d.fix.as_ref().map(|f| f.applicability) {
            Some(Applicability::Safe) => g.safe_fixes += 1,
            Some(Applicability::Unsafe) => g.unsafe_fixes += 1,
            None => {}
        }
        if let Some(v) = fold::value_of(d) {
            g.values.add(v);
        }
        if g.samples.len() < self.samples {
            g.samples.push(d.clone());
        }
    }

    /// Writes the current file's section and keeps its line.
    fn end(&mut self, format: Option<&str>, records: u64) -> io::Result<()> {
        let mut groups = std::mem::take(&mut self.groups);
        self.index.clear();
        self.last = None;
        // Most findings first, errors before warnings at equal counts, then
        // in the order first met.
        groups.sort_by_key(|g| std::cmp::Reverse((g.total, g.severity)));
        let mut counts = [0u64; 3];
        for g in &groups {
            counts[sev_index(g.severity)] += g.total;
            if let Some(k) = rules::ALL.iter().position(|r| std::ptr::eq(*r, g.rule)) {
                self.rules[k].counts[sev_index(g.severity)] += g.total;
            }
        }
        let file = FileLine {
            location: location(&self.path, self.member.as_deref()),
            path: std::mem::take(&mut self.path),
            member: self.member.take(),
            format: format.map(str::to_owned),
            records,
            counts,
        };
        let n = self.files.len();
        let section = file_section(n, &file, &groups, self.samples);
        self.body.write_all(section.as_bytes())?;
        self.files.push(file);
        Ok(())
    }

    fn write_page(&mut self, failures: &[Failure], s: &Summary) -> io::Result<()> {
        let head = page_head(&self.files, &self.rules, failures, s, self.samples);
        self.out.write_all(head.as_bytes())?;
        self.body.drain_into(&mut *self.out)?;
        let tail = page_tail(&self.rules);
        self.out.write_all(tail.as_bytes())?;
        self.out.flush()
    }
}

impl Report for HtmlWriter<'_> {
    fn start_file(&mut self, path: &str, member: Option<&str>) {
        path.clone_into(&mut self.path);
        self.member = member.map(str::to_owned);
        self.groups.clear();
        self.index.clear();
        self.last = None;
    }

    fn diagnostic(&mut self, d: &Diagnostic) -> io::Result<()> {
        self.add(d);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        // Nothing goes out before the end: the page opens with the totals.
        Ok(())
    }

    fn end_file(&mut self, format: Option<&str>, records: u64) -> io::Result<()> {
        self.end(format, records)
    }

    fn abandon_file(&mut self) -> io::Result<bool> {
        if self.groups.is_empty() {
            return Ok(false);
        }
        // As a file of just the findings that went out, read no further:
        // the list of files not checked says why.
        self.end(None, 0)?;
        Ok(true)
    }

    fn finish(&mut self, failures: &[Failure], s: &Summary) -> io::Result<()> {
        self.write_page(failures, s)
    }
}

/// What the exit status means, for the verdict line.
fn verdict(s: &Summary) -> (String, &'static str) {
    let code = s.exit_status;
    let class = match code {
        Some(0) => "v0",
        Some(1) => "v1",
        Some(_) => "v2",
        None => "",
    };
    let meaning = match code {
        Some(0) if s.errors + s.warnings + s.infos == 0 => "clean: nothing to fix".to_owned(),
        Some(0) => "passed: no finding at or above --fail-on (warnings are accepted by the platform, but probably mistakes)".to_owned(),
        Some(1) => {
            if s.errors > 0 {
                "failed: errors the platform rejects, or data it would lose".to_owned()
            } else {
                "failed: findings at or above --fail-on".to_owned()
            }
        }
        Some(_) => "trouble: some files could not be checked (or fixed); see below".to_owned(),
        None => String::new(),
    };
    let line = match code {
        Some(c) => format!("Exit status {c}: {meaning}"),
        None => "Findings of a collected run".to_owned(),
    };
    (line, class)
}

fn page_head(
    files: &[FileLine],
    rules_seen: &[RuleCount],
    failures: &[Failure],
    s: &Summary,
    samples: usize,
) -> String {
    let mut h = String::with_capacity(8192 + files.len() * 256);
    let csp = format!(
        "default-src 'none'; style-src {}; script-src {}; img-src 'none'; base-uri 'none'; form-action 'none'",
        digest::csp_source(STYLE),
        digest::csp_source(SCRIPT)
    );
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"bdxlint {}\">\n\
         <title>bdxlint report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
        env!("CARGO_PKG_VERSION")
    );
    let total = s.errors + s.warnings + s.infos;
    let (line, class) = verdict(s);
    let _ = write!(
        h,
        "<header>\n<h1>bdxlint report</h1>\n<p class=\"verdict {class}\" id=\"verdict\" data-exit=\"{}\">{}</p>\n",
        s.exit_status.map_or(String::new(), |c| c.to_string()),
        inline(&line)
    );
    let _ = write!(
        h,
        "<ul class=\"counts\" id=\"totals\" data-errors=\"{}\" data-warnings=\"{}\" data-infos=\"{}\" data-files=\"{}\">\
         <li><b>{}</b>{}</li><li><b>{}</b>{}</li><li><b>{}</b>{}</li><li><b>{}</b>checked</li>",
        s.errors,
        s.warnings,
        s.infos,
        files.len(),
        thousands(s.errors as u64),
        if s.errors == 1 { "error" } else { "errors" },
        thousands(s.warnings as u64),
        if s.warnings == 1 { "warning" } else { "warnings" },
        thousands(s.infos as u64),
        if s.infos == 1 { "info" } else { "infos" },
        plural(s.files - s.failures, "file"),
    );
    if s.failures > 0 {
        let _ = write!(h, "<li><b>{}</b>not checked</li>", s.failures);
    }
    h.push_str("</ul>\n<p class=\"muted\">");
    push(&mut h, &summary_line(s), Mode::Inline);
    let _ = write!(
        h,
        ". Samples: the first {samples} findings of each rule and column of a file (<code>--max-diagnostics N</code> shows N).</p>\n</header>\n"
    );
    // The filters: hidden until the script shows them, so the page reads
    // whole without it.
    let _ = write!(
        h,
        "<div id=\"filters\" hidden data-total=\"{total}\">\n<label>Severity <select id=\"f-sev\"><option value=\"\">all</option>"
    );
    for sev in SEVERITIES {
        let _ = write!(h, "<option value=\"{sev}\">{sev}</option>");
    }
    h.push_str(
        "</select></label>\n<label>Rule <select id=\"f-rule\"><option value=\"\">all</option>",
    );
    for (r, c) in rules::ALL.iter().zip(rules_seen) {
        if c.counts.iter().sum::<u64>() > 0 {
            let _ = write!(
                h,
                "<option value=\"{}\">{} {}</option>",
                r.code, r.code, r.name
            );
        }
    }
    h.push_str(
        "</select></label>\n<label>File <select id=\"f-file\"><option value=\"\">all</option>",
    );
    for (k, f) in files.iter().enumerate() {
        let _ = write!(h, "<option value=\"{k}\">{}</option>", inline(&f.location));
    }
    h.push_str("</select></label>\n<output id=\"shown\"></output>\n</div>\n");
    overview(&mut h, files, failures);
    h
}

/// The run's files: one row each, and those not checked with the reason.
fn overview(h: &mut String, files: &[FileLine], failures: &[Failure]) {
    h.push_str("<section id=\"files\">\n<h2>Files</h2>\n");
    if files.is_empty() {
        h.push_str("<p>No file was checked.</p>\n");
    } else {
        h.push_str(
            "<div class=\"scroll\"><table>\n<thead><tr><th>File</th><th>Format</th><th class=\"num\">Records</th>\
             <th class=\"num\">Errors</th><th class=\"num\">Warnings</th><th class=\"num\">Infos</th></tr></thead>\n<tbody>\n",
        );
        for (k, f) in files.iter().enumerate() {
            let _ = writeln!(
                h,
                "<tr data-file=\"{k}\"><td><a href=\"#f{k}\" class=\"path\">{}</a></td><td>{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                inline(&f.location),
                f.format.as_deref().map_or("<span class=\"muted\">unknown</span>".to_owned(), |n| format!("<code>{}</code>", inline(n))),
                thousands(f.records),
                thousands(f.counts[0]),
                thousands(f.counts[1]),
                thousands(f.counts[2]),
            );
        }
        h.push_str("</tbody>\n</table></div>\n");
    }
    if !failures.is_empty() {
        h.push_str("<h3 id=\"not-checked\">Not checked</h3>\n<ul class=\"failures\">\n");
        for f in failures {
            let _ = writeln!(
                h,
                "<li data-path=\"{}\"><span class=\"path\">{}</span>: {}</li>",
                attr(&f.path),
                inline(&f.path),
                inline(&f.reason)
            );
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

/// The rules of the run's findings, and the script.
fn page_tail(rules_seen: &[RuleCount]) -> String {
    let mut t = String::with_capacity(16384);
    t.push_str("<section id=\"rules\">\n<h2>Rules</h2>\n");
    let mut any = false;
    for (r, c) in rules::ALL.iter().zip(rules_seen) {
        let n: u64 = c.counts.iter().sum();
        if n == 0 {
            continue;
        }
        any = true;
        let sevs: Vec<&str> = SEVERITIES
            .iter()
            .filter(|s| c.counts[sev_index(**s)] > 0)
            .map(|s| s.as_str())
            .collect();
        let _ = write!(
            t,
            "<section class=\"rule\" id=\"rule-{code}\" data-filter data-rule=\"{code}\" data-sev=\"{}\" data-count=\"{n}\">\n\
             <h3>{code} {}</h3>\n<p><b>",
            sevs.join(" "),
            r.name,
            code = r.code,
        );
        prose(&mut t, r.summary);
        let by: Vec<String> = SEVERITIES
            .iter()
            .filter(|s| c.counts[sev_index(**s)] > 0)
            .map(|s| {
                let n = c.counts[sev_index(*s)];
                format!("{} {s}{}", thousands(n), if n == 1 { "" } else { "s" })
            })
            .collect();
        let _ = writeln!(
            t,
            "</b></p>\n<p class=\"muted\">{} in this run ({}); default severity {}.</p>",
            plural(n as usize, "finding"),
            by.join(", "),
            r.severity
        );
        for para in r.explanation.lines().filter(|l| !l.trim().is_empty()) {
            t.push_str("<p>");
            prose(&mut t, para);
            t.push_str("</p>\n");
        }
        t.push_str("<p class=\"spec\">Spec: ");
        prose(&mut t, r.spec);
        t.push_str("</p>\n");
        if let Some(f) = &r.fix {
            let _ = write!(
                t,
                "<p class=\"fix\"><b>{}</b> ({}; <code>bdxlint check --fix</code>{}): ",
                f.headline(),
                f.safety.as_str(),
                match f.safety {
                    rules::FixSafety::Safe => "",
                    rules::FixSafety::Unsafe | rules::FixSafety::Both => {
                        ", unsafe ones with <code>--unsafe-fixes</code>"
                    }
                }
            );
            prose(&mut t, f.text);
            t.push_str("</p>\n");
        } else {
            t.push_str("<p class=\"fix muted\">No automatic fix.</p>\n");
        }
        t.push_str("</section>\n");
    }
    if !any {
        t.push_str("<p>No findings.</p>\n");
    }
    let _ = write!(
        t,
        "</section>\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    );
    t
}

/// The spec's words for `column` in `format`, and what its severity rests
/// on (as `bdxlint formats` prints them).
fn column_spec(
    format: Option<&str>,
    column: Option<&str>,
) -> Option<(Vec<String>, Option<String>)> {
    let (format, column) = (format?, column?);
    let table = crate::schema::tables()
        .ok()?
        .iter()
        .find(|t| t.name == format)?;
    let what = format!("column {column:?}");
    let checks = table.checks();
    let check = checks.iter().find(|c| c.what == what)?;
    // Its severity's reason is news only where it warns because of a
    // clause; "error" would name the column's other checks too.
    let verdict = check.trace.clause.map(|_| check.verdict());
    Some((
        check.trace.fragments().map(str::to_owned).collect(),
        verdict,
    ))
}

/// One file's section: its table and chart of rule × column, then the
/// samples of each.
fn file_section(n: usize, f: &FileLine, groups: &[Group], samples: usize) -> String {
    let mut h = String::with_capacity(4096);
    let total: u64 = f.counts.iter().sum();
    let _ = write!(
        h,
        "<section class=\"file\" id=\"f{n}\" data-filter data-file=\"{n}\" data-path=\"{}\"",
        attr(&f.path)
    );
    if let Some(m) = &f.member {
        let _ = write!(h, " data-member=\"{}\"", attr(m));
    }
    let _ = write!(
        h,
        " data-count=\"{total}\" data-errors=\"{}\" data-warnings=\"{}\" data-infos=\"{}\">\n<h2><span class=\"path\">{}</span></h2>\n<p class=\"muted\">",
        f.counts[0],
        f.counts[1],
        f.counts[2],
        inline(&f.location)
    );
    match &f.format {
        Some(name) => {
            let _ = write!(h, "Format <code>{}</code>, ", inline(name));
        }
        None => h.push_str("Format not known, "),
    }
    let _ = write!(
        h,
        "{} {}: {}, {}, {}.",
        thousands(f.records),
        if f.records == 1 { "record" } else { "records" },
        plural(f.counts[0] as usize, "error"),
        plural(f.counts[1] as usize, "warning"),
        plural(f.counts[2] as usize, "info")
    );
    if f.member.is_some() {
        h.push_str(" A ZIP bundle member: <code>--fix</code> does not rewrite bundles.");
    }
    h.push_str("</p>\n");
    if groups.is_empty() {
        h.push_str("<p>No findings.</p>\n</section>\n");
        return h;
    }
    group_table(&mut h, n, groups);
    chart(&mut h, groups);
    for (k, g) in groups.iter().enumerate() {
        group_samples(&mut h, n, k, g, f, samples);
    }
    h.push_str("</section>\n");
    h
}

/// ` in `Column`` for a group's heading, or nothing.
fn column_text(c: Option<&str>) -> String {
    c.map_or_else(String::new, |c| format!(" in <code>{}</code>", inline(c)))
}

fn values_cell(h: &mut String, g: &Group) {
    let values = g.values.top(VALUES);
    if values.is_empty() {
        if g.values.overflowed {
            let _ = write!(
                h,
                "<span class=\"muted\">more than {} distinct values, none known to stand out</span>",
                fold::SLOTS
            );
        }
        return;
    }
    if g.values.overflowed {
        let _ = write!(
            h,
            "<span class=\"muted\">of more than {} distinct values:</span>",
            fold::SLOTS
        );
    }
    h.push_str("<ul class=\"values\">");
    for (v, count) in values {
        let n = match count {
            Count::Exact(n) => thousands(n),
            Count::AtLeast(n) => format!("at least {}", thousands(n)),
        };
        if v.is_empty() {
            let _ = write!(h, "<li>{n} × <span class=\"muted\">(empty)</span></li>");
        } else {
            let _ = write!(h, "<li>{n} × <code>{}</code></li>", inline(&v));
        }
    }
    h.push_str("</ul>");
}

fn group_table(h: &mut String, n: usize, groups: &[Group]) {
    h.push_str(
        "<div class=\"scroll\"><table class=\"groups\">\n<thead><tr><th>Severity</th><th>Rule</th><th>Column</th>\
         <th class=\"num\">Findings</th><th>Most common values</th><th>Fix</th><th>Samples</th></tr></thead>\n<tbody>\n",
    );
    for (k, g) in groups.iter().enumerate() {
        let _ = write!(
            h,
            "<tr class=\"g\" data-filter data-sev=\"{sev}\" data-rule=\"{code}\" data-count=\"{}\">\
             <td><span class=\"sev {sev}\">{sev}</span></td><td><a href=\"#rule-{code}\">{code}</a> {}</td><td class=\"col\">{}</td>\
             <td class=\"num\">{}</td><td>",
            g.total,
            g.rule.name,
            g.column.as_deref().map_or("<span class=\"muted\">(row or file)</span>".to_owned(), |c| format!("<code>{}</code>", inline(c))),
            thousands(g.total),
            sev = g.severity,
            code = g.rule.code,
        );
        values_cell(h, g);
        h.push_str("</td><td>");
        let mut fixes = Vec::new();
        if g.safe_fixes > 0 {
            fixes.push(format!("{} safe", thousands(g.safe_fixes)));
        }
        if g.unsafe_fixes > 0 {
            fixes.push(format!("{} unsafe", thousands(g.unsafe_fixes)));
        }
        if fixes.is_empty() {
            h.push_str("<span class=\"muted\">none</span>");
        } else {
            h.push_str(&fixes.join(", "));
        }
        let _ = writeln!(
            h,
            "</td><td><a href=\"#s{n}-{k}\">{}</a></td></tr>",
            plural(g.samples.len(), "sample")
        );
    }
    h.push_str("</tbody>\n</table></div>\n");
}

/// A horizontal bar per rule × column, as long as its share of the file's
/// largest group.
fn chart(h: &mut String, groups: &[Group]) {
    const ROW: usize = 22;
    const LABEL: usize = 380;
    const WIDTH: usize = 900;
    let max = groups.iter().map(|g| g.total).max().unwrap_or(1).max(1);
    let height = groups.len() * ROW + 4;
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><svg class=\"chart\" role=\"img\" aria-label=\"Findings per rule and column\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\">"
    );
    let span = (WIDTH - LABEL - 90) as u64;
    for (k, g) in groups.iter().enumerate() {
        let y = k * ROW + 2;
        let w = (g.total * span).div_ceil(max).max(1);
        let mut label = format!("{} {}", g.rule.code, g.rule.name);
        if let Some(c) = &g.column {
            label.push_str(" · ");
            // Long header names are cut to keep the labels in their column.
            let cut: String = c.chars().take(28).collect();
            label.push_str(&cut);
            if cut.len() < c.len() {
                label.push('…');
            }
        }
        let _ = writeln!(
            h,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect class=\"track\" x=\"{LABEL}\" y=\"{y}\" width=\"{span}\" height=\"{}\"/>\
             <rect class=\"bar {}\" x=\"{LABEL}\" y=\"{y}\" width=\"{w}\" height=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            LABEL - 6,
            y + 14,
            inline(&label),
            ROW - 6,
            g.severity,
            ROW - 6,
            LABEL as u64 + span + 6,
            y + 14,
            thousands(g.total)
        );
    }
    h.push_str("</svg></div>\n");
}

fn group_samples(h: &mut String, n: usize, k: usize, g: &Group, f: &FileLine, samples: usize) {
    let _ = write!(
        h,
        "<section class=\"group {sev}\" id=\"s{n}-{k}\" data-filter data-sev=\"{sev}\" data-rule=\"{code}\">\n\
         <h3><span class=\"sev {sev}\">{sev}</span> <a href=\"#rule-{code}\">{code}</a> {}{}: {}</h3>\n",
        g.rule.name,
        column_text(g.column.as_deref()),
        if g.total > g.samples.len() as u64 {
            format!(
                "{} findings, the first {} shown (of at most {samples})",
                thousands(g.total),
                g.samples.len()
            )
        } else {
            plural(g.total as usize, "finding")
        },
        sev = g.severity,
        code = g.rule.code,
    );
    h.push_str("<p>");
    prose(h, g.rule.summary);
    h.push_str("</p>\n");
    if let Some((quotes, verdict)) = column_spec(f.format.as_deref(), g.column.as_deref()) {
        h.push_str("<div class=\"spec\">");
        for q in quotes {
            h.push_str("<p>Spec: “");
            push(h, &q, Mode::Inline);
            h.push_str("”</p>");
        }
        if let Some(v) = verdict {
            let _ = write!(
                h,
                "<p>The column's checks (<code>bdxlint formats</code>): {}</p>",
                inline(&v)
            );
        }
        h.push_str("</div>\n");
    }
    if g.samples.is_empty() {
        h.push_str("</section>\n");
        return;
    }
    h.push_str("<ol class=\"samples\">\n");
    for d in &g.samples {
        sample(h, d, f.member.is_some());
    }
    h.push_str("</ol>\n</section>\n");
}

fn sample(h: &mut String, d: &Diagnostic, member: bool) {
    let _ = write!(
        h,
        "<li data-line=\"{}\"><p><b>Line {}, column {}</b>: ",
        d.line,
        thousands(d.line),
        d.col
    );
    prose(h, &d.message);
    h.push_str("</p>\n");
    if let Some(help) = &d.help {
        h.push_str("<p class=\"muted\">");
        prose(h, help);
        h.push_str("</p>\n");
    }
    if let Some(s) = &d.snippet {
        source(h, s, &d.span);
    }
    for r in &d.related {
        let _ = write!(h, "<p class=\"muted\">Line {}", thousands(r.line));
        if let Some(c) = &r.column {
            let _ = write!(h, " (<code>{}</code>)", inline(c));
        }
        h.push_str(": ");
        prose(h, &r.message);
        h.push_str("</p>\n");
    }
    if let Some(fix) = &d.fix {
        let _ = write!(
            h,
            "<div class=\"fix\"><p><b>{} fix</b>: ",
            fix.applicability.as_str()
        );
        prose(h, &fix.message);
        if member {
            h.push_str(" (not applied: ZIP bundles are not rewritten)");
        } else if fix.applicability == Applicability::Unsafe {
            h.push_str(" (<code>--fix --unsafe-fixes</code>)");
        } else {
            h.push_str(" (<code>--fix</code>)");
        }
        h.push_str("</p>\n");
        if fix.transform.is_some() {
            h.push_str("<p class=\"muted\">A rewrite of the whole file.</p>\n");
        } else if let Some(s) = &d.snippet {
            before_after(h, s, &fix.edits);
        }
        h.push_str("</div>\n");
    }
    h.push_str("</li>\n");
}

/// A byte range of the file as one of `s.text`, if it lies inside it on
/// character boundaries.
fn local(s: &Snippet, span: &std::ops::Range<u64>) -> Option<std::ops::Range<usize>> {
    let a = usize::try_from(span.start.checked_sub(s.offset)?).ok()?;
    let b = usize::try_from(span.end.checked_sub(s.offset)?).ok()?;
    (a <= b && s.text.is_char_boundary(a) && s.text.is_char_boundary(b) && b <= s.text.len())
        .then_some(a..b)
}

/// The snippet's lines, numbered, with `span` marked.
fn source(h: &mut String, s: &Snippet, span: &std::ops::Range<u64>) {
    let mark = local(s, span);
    h.push_str("<pre class=\"src\">");
    let mut at = 0usize;
    for (k, line) in s.text.split('\n').enumerate() {
        if k > 0 {
            h.push('\n');
        }
        let _ = write!(h, "<span class=\"ln\">{}</span>", s.line + k as u64);
        if k == 0 && s.first_col > 1 {
            h.push('…');
        }
        let end = at + line.len();
        // A CRLF line's CR is the line ending, not text.
        let shown_end = if line.ends_with('\r') { end - 1 } else { end };
        let overlaps = match &mark {
            Some(m) if m.start == m.end => m.start >= at && m.start <= shown_end,
            Some(m) => m.start < shown_end && m.end > at,
            None => false,
        };
        match &mark {
            Some(m) if overlaps => {
                let a = m.start.clamp(at, shown_end);
                let b = m.end.clamp(a, shown_end);
                push(h, &s.text[at..a], Mode::Pre);
                h.push_str("<mark>");
                push(h, &s.text[a..b], Mode::Pre);
                h.push_str("</mark>");
                push(h, &s.text[b..shown_end], Mode::Pre);
            }
            _ => push(h, &s.text[at..shown_end], Mode::Pre),
        }
        at = end + 1;
    }
    h.push_str("</pre>\n");
}

/// The snippet before and after the fix's edits that lie in it; edits
/// outside it are listed.
fn before_after(h: &mut String, s: &Snippet, edits: &[crate::diagnostic::Edit]) {
    let text = s.text.trim_end_matches('\r');
    let mut before = String::new();
    let mut after = String::new();
    let mut at = 0usize;
    let mut outside = Vec::new();
    for e in edits {
        match local(s, &e.span) {
            Some(r) if r.start >= at && r.end <= text.len() => {
                push(&mut before, &text[at..r.start], Mode::Pre);
                push(&mut after, &text[at..r.start], Mode::Pre);
                before.push_str("<del>");
                push(&mut before, &text[r.clone()], Mode::Pre);
                before.push_str("</del>");
                after.push_str("<ins>");
                push(&mut after, &e.content, Mode::Pre);
                after.push_str("</ins>");
                at = r.end;
            }
            _ => outside.push(e),
        }
    }
    if at > 0 || edits.is_empty() {
        push(&mut before, &text[at..], Mode::Pre);
        push(&mut after, &text[at..], Mode::Pre);
        let _ = write!(
            h,
            "<pre class=\"before\"><span class=\"ln\">before</span>{before}</pre>\n<pre class=\"after\"><span class=\"ln\">after </span>{after}</pre>\n"
        );
    }
    for e in outside {
        let _ = write!(
            h,
            "<p class=\"muted\">Bytes {}–{} become <code>",
            e.span.start, e.span.end
        );
        push(h, &e.content, Mode::Inline);
        h.push_str("</code></p>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Edit;

    fn snippet(text: &str, offset: u64) -> Snippet {
        Snippet {
            offset,
            line: 7,
            first_col: 1,
            first_byte_col: 1,
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_source_line_marks_the_span_and_escapes_the_rest() {
        let s = snippet("a,<b>,c\r", 100);
        let mut h = String::new();
        source(&mut h, &s, &(102..105));
        assert_eq!(
            h,
            "<pre class=\"src\"><span class=\"ln\">7</span>a,<mark>&lt;b&gt;</mark>,c</pre>\n"
        );
        // An empty span (a missing cell) is marked where it is.
        let mut h = String::new();
        source(&mut h, &snippet("a,,c", 0), &(2..2));
        assert!(h.contains("a,<mark></mark>,c"), "{h}");
        // A span across lines marks its part of each.
        let mut h = String::new();
        source(&mut h, &snippet("a,\"x\ny\",c", 0), &(2..7));
        assert!(
            h.contains("a,<mark>&quot;x</mark>\n<span class=\"ln\">8</span><mark>y&quot;</mark>,c"),
            "{h}"
        );
    }

    #[test]
    fn a_fix_shows_before_and_after() {
        let s = snippet("x,TRUE,y", 10);
        let mut h = String::new();
        before_after(
            &mut h,
            &s,
            &[Edit {
                span: 12..16,
                content: "true".into(),
            }],
        );
        assert!(h.contains("x,<del>TRUE</del>,y"), "{h}");
        assert!(h.contains("x,<ins>true</ins>,y"), "{h}");
    }
}
