//! CSV formula injection: text a spreadsheet would run as a formula leaves every CSV ms4
//! writes after a single quote (`ms4 export … .csv`, a `--format csv` answer), numbers
//! stay numbers, and `ms4 import` of ms4's own CSV gives back the stored values.

use super::*;

/// Values that start with OWASP's characters, one that begins with the quote itself, and
/// an ordinary one.
const HOSTILE: [&str; 9] = [
    "=HYPERLINK(\"http://x.test/?a=1\",\"click\")",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+1+1",
    "-1+1",
    "=cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "'=1+1",
    "plain, with a comma",
];

/// Ids with the same first characters (an id is trimmed on import, so no tab or CR).
const IDS: [&str; 9] = [
    "=1+1", "@CB-2", "+CB-3", "-CB-4", "=CB-5", "CB-6", "CB-7", "'CB-8", "CB-9",
];

/// Reads an RFC 4180 text into rows of cells (quoted cells may hold commas, quotes and
/// line breaks).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = vec![vec![String::new()]];
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let row = rows.last_mut().unwrap();
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                row.last_mut().unwrap().push('"');
            }
            (_, '"') => quoted = !quoted,
            (false, ',') => row.push(String::new()),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => rows.push(vec![String::new()]),
            (_, c) => row.last_mut().unwrap().push(c),
        }
    }
    rows.retain(|r| r.len() > 1 || !r[0].is_empty());
    rows
}

/// No cell starts with a character a spreadsheet runs, unless it is a plain number.
fn assert_nothing_runs(rows: &[Vec<String>], what: &str) {
    for cell in rows.iter().flatten() {
        let runs = cell.starts_with(['=', '+', '@', '\t', '\r'])
            || (cell.starts_with('-') && cell.parse::<f64>().is_err());
        assert!(!runs, "{what}: the cell {cell:?} would run");
    }
}

fn basins_file(dir: &std::path::Path) -> std::path::PathBuf {
    let features: Vec<String> = IDS
        .iter()
        .zip(HOSTILE)
        .enumerate()
        .map(|(i, (id, text))| {
            let props = serde_json::json!({
                "asset_id": id,
                "owner": text,
                "status": text,
                "rim_elev": -2.25 - i as f64,
                "Note": text,
                "Depth": -3.5,
            });
            let props = props.to_string();
            feature(
                &props[1..props.len() - 1],
                &common::point(670_000.0 + i as f64 * 10.0, 870_000.0),
            )
        })
        .collect();
    let path = dir.join("basins.geojson");
    std::fs::write(&path, fc(&features)).unwrap();
    path
}

#[tokio::test]
async fn formula_looking_values_leave_the_csv_neutralised_and_come_back_as_stored() {
    for kind in kinds() {
        let src = registry(kind, 2260).await;
        import(
            src.store.clone(),
            ImportOptions::new(Layer::CatchBasins, basins_file(src.dir.path())),
        )
        .await
        .unwrap();
        let before = src.store.features(Layer::CatchBasins).await.unwrap();
        assert_eq!(before.len(), IDS.len());
        let stored: Vec<&str> = before.iter().map(|f| f.id.as_str()).collect();
        for id in IDS {
            assert!(stored.contains(&id), "{kind}: {id:?} stored as it was");
        }

        // `ms4 export … .csv`: every text cell that would run has its quote, numbers
        // (an elevation below zero, a negative extra number, WKT) are written as numbers.
        let out = src.dir.path().join("basins.csv");
        run_ok(&src.url, &["export", "catch_basins", out.to_str().unwrap()]);
        let text = std::fs::read_to_string(&out).unwrap();
        let rows = parse_csv(&text);
        assert_nothing_runs(&rows, &format!("{kind} export"));
        let header = &rows[0];
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let (id, owner, note, rim, depth) = (
            col("asset_id"),
            col("owner"),
            col("Note"),
            col("rim_elev"),
            col("Depth"),
        );
        let row_of = |want: &str| {
            rows.iter()
                .find(|r| r[id] == want)
                .unwrap_or_else(|| panic!("{kind}: no row {want:?} in {text}"))
        };
        let first = row_of("'=1+1");
        assert_eq!(first[owner], format!("'{}", HOSTILE[0]));
        assert_eq!(first[note], format!("'{}", HOSTILE[0]));
        assert_eq!(first[rim].parse::<f64>().unwrap(), -2.25);
        assert_eq!(first[depth].parse::<f64>().unwrap(), -3.5);
        assert_eq!(row_of("'-CB-4")[owner], "'-1+1");
        assert_eq!(row_of("CB-6")[owner], "'\t=1+1");
        assert_eq!(row_of("CB-7")[owner], "'\r=1+1");
        assert_eq!(row_of("''CB-8")[owner], "''=1+1");
        assert_eq!(row_of("CB-9")[owner], "plain, with a comma");

        // `ms4 import` of that CSV: the values stored before, the quote taken off.
        let dst = registry("sqlite", 2260).await;
        let mut back = ImportOptions::new(Layer::CatchBasins, &out);
        back.s_srs = Some(2260);
        let report = import(dst.store.clone(), back).await.unwrap();
        assert_eq!(report.imported, IDS.len() as u64, "{kind}: {report}");
        // Six ids, and the eight guarded texts in owner, status and Note.
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.starts_with("30 cells began with the single quote")),
            "{kind}: {:?}",
            report.warnings
        );
        let after = dst.store.features(Layer::CatchBasins).await.unwrap();
        // GDAL's CSV reader gives a carriage return back as a line feed, wherever it is
        // in a value (as it did before neutralising): the one change a CSV makes.
        let read_back = |v: &Value| match v {
            Value::Text(t) => Value::Text(t.replace('\r', "\n")),
            other => other.clone(),
        };
        for a in &before {
            let b = after
                .iter()
                .find(|b| b.id == a.id)
                .unwrap_or_else(|| panic!("{kind}: {:?} came back", a.id));
            let want: Vec<Value> = a.values.iter().map(read_back).collect();
            assert_eq!(want, b.values, "{kind} {:?}", a.id);
            let note = a.extra["Note"].as_str().unwrap().replace('\r', "\n");
            assert_eq!(b.extra["Note"], note.as_str(), "{kind} {:?}", a.id);
            assert_eq!(b.extra["Depth"], -3.5, "{kind} {:?}", a.id);
        }

        // A `--format csv` answer: the same rule.
        let list = run_ok(&src.url, &["list", "catch_basins", "--format", "csv"]);
        let rows = parse_csv(&list);
        assert_nothing_runs(&rows, &format!("{kind} list"));
        assert_eq!(rows[0], ["asset_id", "status"], "{kind}: {list}");
        assert!(
            rows.iter()
                .any(|r| r[0] == "'=CB-5" && r[1] == "'=cmd|' /C calc'!A0"),
            "{kind}: {list}"
        );
        assert!(
            rows.iter().any(|r| r[0] == "CB-7" && r[1] == "'\r=1+1"),
            "{kind}: {list}"
        );
    }
}
