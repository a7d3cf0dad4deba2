//! One golden determination per built-in town at each threshold its profile states: a
//! project disturbing exactly the threshold's area, its runoff reaching a water that is not
//! listed. The snapshots (under `snapshots/` beside this file) are the determinations as
//! the code makes them, so a change of legal wording, a citation or a requirement shows as
//! a diff in review. Under `CI` insta writes nothing and a mismatch fails the test; after a
//! change meant to alter an answer, `INSTA_UPDATE=always cargo test --lib goldens` rewrites
//! them for the diff to be read before committing.

use super::*;

#[test]
fn each_built_in_town_at_each_of_its_thresholds_answers_as_its_golden() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let mut goldens = 0;
    for id in Profile::builtin_ids() {
        let p = profile(id);
        for (name, t) in p.thresholds.iter() {
            let d = determine(&p, &facts(sqft(t.sqft())), &unlisted_water());
            settings.set_info(&format!("{id}: {} {:?} ({name})", t.value, t.unit));
            settings.bind(|| insta::assert_json_snapshot!(format!("{id}@{name}"), d));
            goldens += 1;
        }
    }
    // Carmel, North Castle and Windsor state ten thresholds between them.
    assert!(goldens >= 10, "only {goldens} goldens");
}
