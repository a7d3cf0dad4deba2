//! A point far outside the registry's area is refused with a hint at the slip
//! (longitude and latitude swapped, x and y swapped, degrees given as x/y), on the
//! command line and over HTTP, not answered at hundreds of millions of feet.

use super::*;

fn registry() -> (String, tempfile::TempDir) {
    let (url, dir) = new_registry("sqlite", "");
    let s = net("structures.structures.geojson");
    run_ok(
        &url,
        &[
            "import",
            s.to_str().unwrap(),
            "--layer-by",
            "kind=structures:'structure';smps:'smp';outfalls:'outfall';catch_basins:'catch_basin'",
        ],
    );
    (url, dir)
}

#[test]
fn swapped_longitude_and_latitude_are_refused_with_the_hint_on_the_command_line() {
    let (url, _dir) = registry();
    // The right way round answers (the control: the point is in the registry's area).
    let ok = run_ok(
        &url,
        &[
            "nearby", "--lon", "-73.7", "--lat", "41.1", "--k", "1", "--format", "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&ok).unwrap();
    assert_eq!(v["facilities"].as_array().unwrap().len(), 1, "{v}");
    let out = run(&url, &["nearby", "--lon", "41.1", "--lat", "-73.7"]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("--lon/--lat")
            && e.contains("look swapped")
            && e.contains("lon -73.7, lat 41.1"),
        "{e}"
    );
    assert!(
        out.stdout.is_empty(),
        "no answer is printed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Degrees given as x and y.
    let out = run(&url, &["nearby", "--x", "-73.7", "--y", "41.1"]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("--x/--y") && e.contains("give it as lon and lat"),
        "{e}"
    );
}

#[tokio::test]
async fn swapped_longitude_and_latitude_are_a_400_naming_the_field() {
    let (url, _dir) = registry();
    let store = ms4::store::open(&url).await.unwrap();
    let app = App::public(&store).await;
    let get = |q: &'static str| {
        let r = app.get(format!("/api/nearby?{q}"));
        async move {
            let r = r.send().await;
            let s = r.status().as_u16();
            (s, r.json::<serde_json::Value>())
        }
    };
    let (s, v) = get("lon=-73.7&lat=41.1&k=1").await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["facilities"].as_array().unwrap().len(), 1, "{v}");
    let (s, v) = get("lon=41.1&lat=-73.7").await;
    assert_eq!(s, 400, "{v}");
    let e = v["error"].as_str().unwrap();
    assert!(
        e.starts_with("lon/lat:") && e.contains("look swapped"),
        "{e}"
    );
    assert!(v.get("facilities").is_none(), "{v}");
}
