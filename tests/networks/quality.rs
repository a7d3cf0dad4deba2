//! The network as drawn: zero-length pipes and cycles, reversals, bidirectional pipes,
//! id collisions — each a hand-made network in `tests/fixtures/networks/`, loaded through
//! the CLI into both stores and checked with `network-check` and `trace`.

use super::*;

/// A registry of `kind` holding the case's structures (split into layers by their
/// `kind` field) and pipes; returns its URL and the folder that keeps it.
pub(crate) fn load_case(kind: &str, case: &str) -> (String, tempfile::TempDir) {
    let (url, dir) = new_registry(kind, "nw");
    let s = net(&format!("{case}.structures.geojson"));
    run_ok(
        &url,
        &[
            "import",
            s.to_str().unwrap(),
            "--layer-by",
            "kind=manholes:'manhole';outfalls:'outfall';catch_basins:'catch_basin'",
        ],
    );
    let p = net(&format!("{case}.pipes.geojson"));
    run_ok(&url, &["import", "pipes", p.to_str().unwrap()]);
    (url, dir)
}

/// `network-check --format json`.
pub(crate) fn check(url: &str) -> serde_json::Value {
    serde_json::from_str(&run_ok(url, &["network-check", "--format", "json"])).unwrap()
}

/// `trace ID --DIRECTION --format json`, the trace part.
pub(crate) fn trace(url: &str, id: &str, dir: &str) -> serde_json::Value {
    let out = run_ok(url, &["trace", id, &format!("--{dir}"), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["trace"].clone()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn zero_length_pipes_are_reported_and_every_cycle_pipe_is_listed() {
    for kind in kinds() {
        let (url, _dir) = load_case(kind, "cycles");
        let r = check(&url);
        let s = &r["summary"];
        assert_eq!(s["zero_length_pipes"], 1, "{kind}: {s}");
        let z = &r["zero_length_pipes"];
        assert_eq!(z.as_array().unwrap().len(), 1, "{kind}: {z}");
        assert_eq!(z[0]["pipe"], "P-Z", "{kind}: {z}");
        // The loop at MH-1 (a real pipe, 90 ft long) and the MH-3/4/5 group.
        assert_eq!(s["cycles"], 2, "{kind}: {}", r["cycles"]);
        assert_eq!(s["pipes_in_cycles"], 5, "{kind}");
        let mut listed: Vec<String> = r["cycles"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| strings(&c["pipes"]))
            .collect();
        listed.sort();
        assert_eq!(listed, ["C-1", "C-2", "C-3", "C-4", "P-L"], "{kind}");
        // The zero-length pipe does not stop a trace.
        let t = trace(&url, "MH-1", "downstream");
        assert_eq!(t["outfalls"][0]["outfall"], "OF-1", "{kind}: {t}");
    }
}

/// Issue 27 item 5: a 0.62 ft pipe whose `from_id` names a structure that is not there
/// snaps by position onto its own downstream structure: the finding says so (the
/// structure, the length, the missing id), not only that its ends are one point. The
/// zero-length pipe of the `cycles` case, drawn as a point between two pipes, is the
/// counter-case.
#[test]
fn a_zero_length_pipe_says_what_happened_to_it() {
    for kind in kinds() {
        let (url, _dir) = load_case(kind, "short");
        let r = check(&url);
        let z = &r["zero_length_pipes"];
        assert_eq!(z.as_array().unwrap().len(), 1, "{kind}: {z}");
        assert_eq!(z[0]["pipe"], "P-S");
        assert_eq!(z[0]["structure"], "OF-A", "{kind}: {z}");
        assert!(
            (z[0]["length"].as_f64().unwrap() - 0.62).abs() < 1e-6,
            "{z}"
        );
        assert_eq!(z[0]["unknown_ids"][0], "from_id MH-99", "{kind}: {z}");
        let table = run_ok(&url, &["network-check", "--format", "csv"]);
        let line = table
            .lines()
            .find(|l| l.contains("P-S") && l.contains("zero_length_pipe"))
            .unwrap_or_else(|| panic!("{kind}: {table}"));
        assert!(
            line.contains("both ends snap to structure OF-A")
                && line.contains("0.62 ftUS long")
                && line.contains("from_id MH-99, which is no structure"),
            "{kind}: {line}"
        );
        // The trace's table lists what it reached, not only how many.
        let table = run_ok(&url, &["trace", "MH-A", "--downstream"]);
        let reached: Vec<&str> = table
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                matches!(w.next(), Some("structure" | "outfall" | "pipe")).then(|| w.next())?
            })
            .collect();
        // P-S, both ends at OF-A, is reached there.
        assert_eq!(reached, ["MH-A", "OF-A", "P-A", "P-S"], "{kind}: {table}");
        assert!(table.contains("MH-A → P-A → OF-A"), "{kind}: {table}");
        let (url, _dir) = load_case(kind, "cycles");
        let table = run_ok(&url, &["network-check", "--format", "csv"]);
        let line = table
            .lines()
            .find(|l| l.contains("P-Z") && l.contains("zero_length_pipe"))
            .unwrap_or_else(|| panic!("{kind}: {table}"));
        assert!(line.contains("drawn as one point"), "{kind}: {line}");
    }
}

#[test]
fn pipes_turned_by_their_inverts_are_listed_beside_those_laid_against_them() {
    for kind in kinds() {
        let (url, _dir) = load_case(kind, "reversals");
        let r = check(&url);
        let s = &r["summary"];
        assert_eq!(
            (
                s["reversed_pipes"].as_u64(),
                s["turned_by_inverts"].as_u64()
            ),
            (Some(2), Some(1)),
            "{kind}: {s}"
        );
        let rev = r["reversed_pipes"].as_array().unwrap();
        let r1 = rev.iter().find(|x| x["pipe"] == "R-1").expect("R-1 listed");
        assert_eq!(r1["turned_by_inverts"], true);
        assert_eq!(r1["direction"], "inverts");
        assert_eq!(
            (r1["from"].as_str(), r1["to"].as_str()),
            (Some("MH-R"), Some("OF-R"))
        );
        let r2 = rev.iter().find(|x| x["pipe"] == "R-2").expect("R-2 listed");
        assert_eq!(r2["turned_by_inverts"], false);
        assert_eq!(r2["direction"], "ids");
        // Turned, R-1 carries MH-R's water to OF-R.
        let t = trace(&url, "MH-R", "downstream");
        assert_eq!(t["outfalls"][0]["outfall"], "OF-R", "{kind}: {t}");
    }
}

#[test]
fn a_bidirectional_pipe_is_walked_both_ways_and_said_so() {
    for kind in kinds() {
        let (url, _dir) = load_case(kind, "bidirectional");
        let r = check(&url);
        assert_eq!(r["summary"]["bidirectional_pipes"], 1, "{kind}");
        assert_eq!(strings(&r["bidirectional_pipes"]), ["B-1"]);
        // B-1 is digitised MH-X -> MH-Y; from MH-Y it is walked back to MH-X and OF-X.
        let t = trace(&url, "MH-Y", "downstream");
        let mut outfalls: Vec<&str> = t["outfalls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["outfall"].as_str().unwrap())
            .collect();
        outfalls.sort();
        assert_eq!(outfalls, ["OF-X", "OF-Y"], "{kind}: {t}");
        assert_eq!(strings(&t["walked_both_ways"]), ["B-1"]);
        let x = t["outfalls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["outfall"] == "OF-X")
            .unwrap();
        assert_eq!(strings(&x["path"]), ["MH-Y", "B-1", "MH-X", "U-1", "OF-X"]);
        // Upstream from OF-Y: MH-Y, and over B-1 MH-X too, each pipe once.
        let up = trace(&url, "OF-Y", "upstream");
        let mut pipes = strings(&up["pipes"]);
        pipes.sort();
        assert_eq!(pipes, ["B-1", "U-2"], "{kind}: {up}");
    }
}

#[test]
fn an_id_a_structure_and_a_pipe_share_is_flagged_and_both_can_be_traced() {
    for kind in kinds() {
        let (url, _dir) = load_case(kind, "collisions");
        let r = check(&url);
        assert_eq!(r["summary"]["id_collisions"], 1, "{kind}");
        assert_eq!(r["id_collisions"][0]["id"], "1");
        assert_eq!(r["id_collisions"][0]["structure_layer"], "manholes");
        let t = trace(&url, "1", "downstream");
        assert!(
            t["id_collision"].as_str().unwrap().contains("trace pipe:1"),
            "{kind}: {t}"
        );
        assert_eq!(t["structures"][0], "1");
        let p = trace(&url, "pipe:1", "downstream");
        assert_eq!(strings(&p["pipes"])[0], "1", "{kind}: {p}");
        assert!(p["id_collision"]
            .as_str()
            .unwrap()
            .contains("starts at the pipe"));
        assert_eq!(p["outfalls"][0]["outfall"], "3");
    }
}

#[test]
fn unknown_from_to_ids_are_counted_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (url, _d) = load_case("sqlite", "collisions");
    let pipes = format!(
        r#"{{"type":"FeatureCollection",{CRS_2260},"features":[{}]}}"#,
        [
            feature(
                r#""asset_id":"U-1","from_id":"NOPE-1","to_id":"2""#,
                &line(&[(660000.0, 870000.0), (660100.0, 870000.0)])
            ),
            feature(
                r#""asset_id":"U-2","from_id":"2","to_id":"NOPE-2""#,
                &line(&[(660100.0, 870000.0), (660200.0, 870000.0)])
            ),
        ]
        .join(",")
    );
    let f = dir.path().join("more_pipes.geojson");
    std::fs::write(&f, pipes).unwrap();
    run_ok(&url, &["import", "pipes", f.to_str().unwrap()]);
    let r = check(&url);
    assert_eq!(r["summary"]["unknown_ids"], 2, "{}", r["summary"]);
    assert_eq!(r["unknown_ids"].as_array().unwrap().len(), 2);
}

#[test]
fn a_pipe_end_on_another_pipes_interior_joins_it_there() {
    for kind in kinds() {
        let (url, _dir) = load_case(kind, "tjunction");
        let r = check(&url);
        let s = &r["summary"];
        assert_eq!(s["t_junctions"], 1, "{kind}: {s}");
        assert_eq!(s["dangling_ends"], 0, "{kind}: {}", r["dangling_ends"]);
        assert_eq!(s["pipes"], 2, "the trunk is split in the network only");
        assert_eq!(s["cycles"], 0);
        let t = &r["t_junctions"][0];
        assert_eq!(
            (t["pipe"].as_str(), t["end"].as_str(), t["joins"].as_str()),
            (Some("L-1"), Some("to"), Some("T-1"))
        );
        assert!((t["distance"].as_f64().unwrap() - 0.4).abs() < 1e-6, "{t}");
        // The lateral's water reaches the trunk's outfall, the trunk named once.
        let down = trace(&url, "CB-L", "downstream");
        assert_eq!(
            strings(&down["outfalls"][0]["path"]),
            ["CB-L", "L-1", "T-1", "OF-A"],
            "{kind}: {down}"
        );
        let up = trace(&url, "OF-A", "upstream");
        let mut st = strings(&up["structures"]);
        st.sort();
        assert_eq!(st, ["CB-L", "MH-A", "OF-A"], "{kind}: {up}");
        assert_eq!(strings(&up["pipes"]).len(), 2, "{up}");
        // Upstream of the trunk pipe itself: the lateral joins it.
        let up = trace(&url, "T-1", "upstream");
        let mut st = strings(&up["structures"]);
        st.sort();
        assert_eq!(st, ["CB-L", "MH-A"], "{kind}: {up}");
        // The stored trunk is one feature still.
        let out = run_ok(
            &url,
            &[
                "export",
                "pipes",
                _dir.path().join("p.geojson").to_str().unwrap(),
            ],
        );
        let _ = out;
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(_dir.path().join("p.geojson")).unwrap())
                .unwrap();
        assert_eq!(j["features"].as_array().unwrap().len(), 2);
    }
}
