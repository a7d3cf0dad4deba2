//! Re-importing a file skips converting the features whose source is unchanged, on both
//! stores, and the report and the rows stay what a full conversion gives: a repaired or
//! converted feature is converted (and reported) every time, an outside edit or a
//! change in the file is seen, and another way of converting converts everything again.

use super::*;

/// More than the size from which a write compares the whole layer.
const N: usize = 1200;
/// The bow-tie parcel, repaired on every import.
const BOWTIE: usize = 5;
/// The parcel whose address is a number, converted to text on every import.
const NUMBERED: usize = 7;

/// Parcels in EPSG:2260 (US feet), imported into a UTM registry so every one is
/// reprojected; `owner_of` names each parcel's owner.
fn parcels_file(dir: &std::path::Path, owner_of: impl Fn(usize) -> String) -> std::path::PathBuf {
    let features: Vec<String> = (0..N)
        .map(|i| {
            let (x, y) = (
                660_000.0 + (i % 40) as f64 * 120.0,
                860_000.0 + (i / 40) as f64 * 120.0,
            );
            let geom = if i == BOWTIE {
                format!(
                    r#"{{"type":"Polygon","coordinates":[[[{x},{y}],[{},{}],[{},{y}],[{x},{}],[{x},{y}]]]}}"#,
                    x + 100.0,
                    y + 100.0,
                    x + 100.0,
                    y + 100.0
                )
            } else {
                square(x, y, 100.0)
            };
            let address = if i == NUMBERED {
                r#","address":12"#.to_string()
            } else {
                String::new()
            };
            feature(
                &format!(
                    r#""parcel_id":"PB-{i:05}","land_use":"residential","owner":"{}"{address}"#,
                    owner_of(i)
                ),
                &geom,
            )
        })
        .collect();
    let path = dir.join("parcels.geojson");
    std::fs::write(&path, fc(&features)).unwrap();
    path
}

fn town(_: usize) -> String {
    "Town".into()
}

async fn import_parcels(
    reg: &Registry,
    path: &std::path::Path,
    invalid: ms4::import::InvalidPolicy,
) -> ms4::import::ImportReport {
    let mut opts = ImportOptions::new(Layer::Parcels, path);
    opts.invalid = invalid;
    import(reg.store.clone(), opts).await.unwrap()
}

fn written(r: &ms4::import::ImportReport) -> (u64, u64, u64, u64) {
    let w = r.written.as_ref().expect("a write");
    (w.inserted, w.updated, w.unchanged, w.unchanged_at_source)
}

/// How many parcels have no source hash, counted by another program.
fn unsourced(kind: &str, reg: &Registry) -> usize {
    outside_count(
        kind,
        reg,
        "SELECT count(*) AS n FROM parcels WHERE ms4_source IS NULL",
    )
}

#[tokio::test]
async fn a_reimport_converts_only_what_changed_at_the_source_and_reports_as_before() {
    use ms4::import::InvalidPolicy::{Reject, Repair};
    let n = N as u64;
    for kind in kinds() {
        let reg = registry(kind, 32618).await;
        let dir = tempfile::tempdir().unwrap();
        let path = parcels_file(dir.path(), town);

        let first = import_parcels(&reg, &path, Repair).await;
        assert_eq!(written(&first), (n, 0, 0, 0), "{kind}: {first}");
        assert_eq!(first.repaired.len(), 1, "{kind}");
        assert_eq!(first.converted.get("address"), Some(&1), "{kind}");
        assert_eq!(
            unsourced(kind, &reg),
            2,
            "{kind}: the repaired and the converted parcel keep no source hash"
        );

        // The same file: all unchanged, all but those two recognised by their source,
        // and the report says again what the conversion found.
        let again = import_parcels(&reg, &path, Repair).await;
        assert_eq!(written(&again), (0, 0, n, n - 2), "{kind}: {again}");
        assert_eq!(again.imported, n, "{kind}");
        assert_eq!(
            again
                .repaired
                .iter()
                .map(|r| r.id.clone())
                .collect::<Vec<_>>(),
            [Some(format!("PB-{BOWTIE:05}"))],
            "{kind}"
        );
        assert_eq!(again.converted.get("address"), Some(&1), "{kind}");

        // Another program changes a parcel: the triggers clear both hashes, so the same
        // file puts it back, audited, and it gets its source hash again.
        outside_sql(
            kind,
            &reg,
            "UPDATE parcels SET owner = 'Someone Else' WHERE parcel_id = 'PB-00042'",
        );
        assert_eq!(unsourced(kind, &reg), 3, "{kind}");
        let back = import_parcels(&reg, &path, Repair).await;
        assert_eq!(written(&back), (0, 1, n - 1, n - 3), "{kind}: {back}");
        let stored = reg.store.features(Layer::Parcels).await.unwrap();
        let p42 = stored.iter().find(|f| f.id == "PB-00042").unwrap();
        assert_eq!(
            p42.get(Layer::Parcels, "owner"),
            &Value::Text("Town".into())
        );
        assert_eq!(unsourced(kind, &reg), 2, "{kind}");

        // A change in the file is a change.
        let changed = parcels_file(dir.path(), |i| {
            if i == 100 {
                "New Owner".into()
            } else {
                "Town".into()
            }
        });
        let one = import_parcels(&reg, &changed, Repair).await;
        assert_eq!(written(&one), (0, 1, n - 1, n - 3), "{kind}: {one}");

        // Another way of converting (invalid polygons refused, not repaired) converts
        // every feature again; the unchanged ones then carry the new recipe's hash.
        let strict = import_parcels(&reg, &changed, Reject).await;
        assert_eq!(strict.rejected, 1, "{kind}: the bow-tie");
        assert_eq!(written(&strict), (0, 0, n - 1, 0), "{kind}: {strict}");
        let strict_again = import_parcels(&reg, &changed, Reject).await;
        assert_eq!(written(&strict_again), (0, 0, n - 1, n - 2), "{kind}");
    }
}
