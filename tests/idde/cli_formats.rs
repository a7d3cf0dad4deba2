//! The officer's commands: `ms4 inspect photo add|list|get` (the bytes kept with their
//! SHA-256 and given back), and `ms4 case` and `ms4 deadlines` printing as a table, JSON
//! or CSV like the other commands.

use serde_json::{json, Value};

use crate::common::*;

#[test]
fn photos_and_formats_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("registry.gpkg").display());
    super::town::build(dir.path(), &url);
    let body = json!({"asset_id": "OF-2", "inspected_on": "2026-05-04", "kind": "dry_weather_screening",
        "result": "done", "inspector": "Ann Field",
        "screening": {"hours_since_rain": 72, "flow": "none", "characterisation": "unlikely"}});
    let made: Value = serde_json::from_str(&run_ok(&url, &["inspect", &body.to_string()])).unwrap();
    let insp = made["inspection"]["inspection_id"]
        .as_str()
        .unwrap()
        .to_string();
    let insp = insp.as_str();

    // A photo in, listed with its checksum, and the same bytes out.
    let bytes: Vec<u8> = b"\x89PNG\r\n\x1a\n not a real picture, but bytes".to_vec();
    let file = dir.path().join("outfall.png");
    std::fs::write(&file, &bytes).unwrap();
    let sha = ms4::store::photos::sha256_hex(&bytes);
    let v: Value = serde_json::from_str(&run_ok(
        &url,
        &["inspect", "photo", "add", insp, file.to_str().unwrap()],
    ))
    .unwrap();
    assert_eq!(v["sha256"], sha.as_str(), "{v}");
    assert_eq!(v["content_type"], "image/png");
    assert_eq!(v["stored"], true);
    // The same bytes again are not stored twice.
    let v: Value = serde_json::from_str(&run_ok(
        &url,
        &["inspect", "photo", "add", insp, file.to_str().unwrap()],
    ))
    .unwrap();
    assert_eq!(v["stored"], false);
    let csv = run_ok(&url, &["inspect", "photo", "list", insp, "--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "sha256,content_type,size,taken_by,stored_at");
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(
        lines[1].starts_with(&format!("{sha},image/png,{},", bytes.len())),
        "{csv}"
    );
    let out = dir.path().join("back.png");
    run_ok(
        &url,
        &["inspect", "photo", "get", &sha, "-o", out.to_str().unwrap()],
    );
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
    // Bad input names what is wrong.
    let e = run(
        &url,
        &[
            "inspect",
            "photo",
            "add",
            "OF-9:2026-01-01:x",
            file.to_str().unwrap(),
        ],
    );
    assert!(String::from_utf8_lossy(&e.stderr).contains("no such inspection"));
    let txt = dir.path().join("notes.txt");
    std::fs::write(&txt, "words").unwrap();
    let e = run(
        &url,
        &["inspect", "photo", "add", insp, txt.to_str().unwrap()],
    );
    let said = String::from_utf8_lossy(&e.stderr);
    assert!(
        said.contains("notes.txt: the bytes are not a JPEG, PNG, WebP or HEIC/HEIF image"),
        "{said}"
    );
    let e = run(&url, &["inspect", "photo", "get", "abc", "-o", "x"]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("64 hex digits"));

    // A case opened, then printed three ways.
    let open = json!({"origin": "hotline", "opened_on": "2026-05-05", "reported_by": "a neighbour",
        "parcel_id": "P-RES", "description": "suds in the swale"});
    let v: Value = serde_json::from_str(&run_ok(
        &url,
        &["case", "--format", "json", "open", &open.to_string()],
    ))
    .unwrap();
    let id = v["case_id"].as_str().unwrap().to_string();
    assert_eq!(id, "CASE-2026-0001");
    let table = run_ok(&url, &["case", "list"]);
    assert!(table.lines().next().unwrap().starts_with("case"), "{table}");
    assert!(table.contains(&id) && table.contains("hotline"), "{table}");
    let csv = run_ok(&url, &["case", "list", "--format", "csv"]);
    assert_eq!(
        csv.lines().collect::<Vec<_>>(),
        [
            "case,status,opened_on,origin,asset,parcel,connection,actions,closure",
            &format!("{id},open,2026-05-05,hotline,,P-RES,,0,"),
        ]
    );
    let action = json!({"kind": "written_notice", "on": "2026-05-06", "at": "10:00", "method": "hand", "by": "Town Manager"});
    run_ok(&url, &["case", "action", &id, &action.to_string()]);
    let csv = run_ok(
        &url,
        &[
            "case",
            "show",
            &id,
            "--as-of",
            "2026-05-07",
            "--format",
            "csv",
        ],
    );
    assert!(csv.starts_with("field,value\n"), "{csv}");
    assert!(csv.contains(&format!("case,{id}\n")), "{csv}");
    assert!(
        csv.contains("action 1,written_notice on 2026-05-06 10:00 by Town Manager (hand)"),
        "{csv}"
    );
    // Windsor's 72 hours from hand delivery: due 9 May 10:00, still due on the 7th.
    assert!(
        csv.contains("due: ") && csv.contains("by 2026-05-09 10:00"),
        "{csv}"
    );
    let csv = run_ok(
        &url,
        &["deadlines", "--as-of", "2026-05-07", "--format", "csv"],
    );
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "case,status,by / accrued,what,law");
    assert!(
        lines[1].starts_with(&format!("{id},due,2026-05-09 10:00,")),
        "{csv}"
    );
    let v: Value = serde_json::from_str(&run_ok(
        &url,
        &["deadlines", "--as-of", "2026-05-07", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(v["due"], 2, "{v}");
    // No fine has accrued yet: nought dollars, never "-0" (an empty sum of floats).
    assert!(v["accrued"].as_f64() == Some(0.0), "{v}");
    assert!(!v.to_string().contains("-0.0"), "{v}");

    // The reporting year's start and the report's due date are the profile's reading of
    // the permit, from sources other than its own text: the report says so, each an open
    // fact.
    let r: Value = serde_json::from_str(&run_ok(
        &url,
        &["report", "--year", "2026", "--format", "json"],
    ))
    .unwrap();
    let facts = r["open_facts"].as_array().unwrap();
    assert_eq!(facts.len(), 2, "{r}");
    assert_eq!(r["due_on"], "2027-04-01", "{r}");
    let f = facts[0].as_str().unwrap();
    assert!(
        f.contains("starts on 2026-01-01") && f.contains("has not been checked against"),
        "{f}"
    );
    let csv = run_ok(&url, &["report", "--year", "2026", "--format", "csv"]);
    let last = csv
        .lines()
        .find(|l| l.starts_with("open_fact,\"the reporting year"))
        .unwrap_or_else(|| panic!("{csv}"));
    assert!(
        last.starts_with("open_fact,\"the reporting year starts on 2026-01-01")
            && last.ends_with(",,,,,,,,"),
        "{csv}"
    );
    assert_eq!(
        last.split(',').count() - f.matches(',').count(),
        csv.lines().next().unwrap().split(',').count(),
        "as many columns as the header: {last}"
    );
    let table = run_ok(&url, &["report", "--year", "2026"]);
    assert!(
        table.contains("open fact: the reporting year starts on 2026-01-01"),
        "{table}"
    );
}
