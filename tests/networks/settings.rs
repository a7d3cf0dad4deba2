//! The snap tolerance is a registry setting a user changes (`ms4 profile set`), and the
//! network follows it, on both stores.

use super::quality::{check, load_case};
use super::*;

#[test]
fn changing_the_snap_tolerance_changes_the_network() {
    for kind in kinds() {
        let (url, _dir) = load_case(kind, "tjunction");
        // The lateral ends 0.4 ft from the trunk: within the profile's 1 ft.
        assert_eq!(check(&url)["summary"]["t_junctions"], 1, "{kind}");
        let out = run_ok(&url, &["profile", "set", "snap_tolerance", "0.25ft"]);
        assert!(out.contains("updated"), "{kind}: {out}");
        let shown = run_ok(&url, &["profile", "show"]);
        assert!(
            shown.contains("snap_tolerance = { value = 0.25, unit = \"ft\" }"),
            "{kind}"
        );
        let r = check(&url);
        // International feet, in the registry's US survey feet.
        let tol = r["summary"]["snap_tolerance"].as_f64().unwrap();
        assert!(
            (tol - 0.25 * 0.3048 / 0.3048006096).abs() < 1e-6,
            "{kind}: {tol}"
        );
        assert_eq!(r["summary"]["t_junctions"], 0, "{kind}");
        assert_eq!(
            r["summary"]["dangling_ends"], 1,
            "{kind}: the lateral's end now dangles"
        );
        // Metres are converted into the registry's unit (US feet here).
        run_ok(&url, &["profile", "set", "snap_tolerance", "0.3m"]);
        let r = check(&url);
        let tol = r["summary"]["snap_tolerance"].as_f64().unwrap();
        assert!((tol - 0.3 / 0.3048006096).abs() < 1e-6, "{kind}: {tol}");
        assert_eq!(r["summary"]["t_junctions"], 1, "{kind}");
        // Mistakes name what is wrong and change nothing.
        let bad = run(&url, &["profile", "set", "snap_tolerance", "2 furlongs"]);
        assert!(!bad.status.success());
        assert!(
            String::from_utf8_lossy(&bad.stderr).contains("unit"),
            "{kind}"
        );
        let bad = run(&url, &["profile", "set", "snap", "1ft"]);
        assert!(String::from_utf8_lossy(&bad.stderr).contains("snap_tolerance, record_tolerance"));
        assert!((check(&url)["summary"]["snap_tolerance"].as_f64().unwrap() - tol).abs() < 1e-9);
    }
}
