//! Extra attributes keep their types through an export and an import again, in every
//! export format, on both stores.

use super::*;

#[tokio::test]
async fn extra_attributes_keep_their_types_in_every_format() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        import(
            reg.store.clone(),
            ImportOptions::new(Layer::Pipes, net("typed_attributes.geojson")),
        )
        .await
        .unwrap();
        let features = reg.store.features(Layer::Pipes).await.unwrap();
        let meta = reg.store.meta().await.unwrap();
        for ext in ["gpkg", "shp", "geojson", "csv"] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(format!("pipes.{ext}"));
            // P-2's blank Note is the one thing a shapefile or a CSV cannot keep: said,
            // and written only with the loss allowed.
            let shp = ext == "shp";
            let lossy = shp || ext == "csv";
            if lossy {
                let e = ms4::import::export::export(Layer::Pipes, &features, &meta, &path)
                    .unwrap_err()
                    .to_string();
                let what = if shp { "a shapefile" } else { "a CSV" };
                assert!(
                    e.contains(&format!(
                        "layer pipes field Note: 1 blank string, which {what} cannot tell from no value"
                    )),
                    "{kind} {ext}: {e}"
                );
                assert!(!path.exists(), "{kind} {ext}: nothing written");
            }
            let done = ms4::import::export::export_with(
                Layer::Pipes,
                &features,
                &meta,
                &path,
                ms4::import::export::ExportOptions { allow_lossy: lossy },
            )
            .unwrap();
            assert_eq!(
                done.losses.len(),
                usize::from(lossy),
                "{kind} {ext}: {:?}",
                done.losses
            );
            let back = registry("sqlite", 2260).await;
            let mut opts = ImportOptions::new(Layer::Pipes, &path);
            if ext == "csv" {
                opts.s_srs = Some(2260);
            }
            let r = import(back.store.clone(), opts).await.unwrap();
            assert_eq!(r.imported, 3, "{kind} {ext}: {r}");
            let got = back.store.features(Layer::Pipes).await.unwrap();
            let p1 = got.iter().find(|f| f.id == "P-1").unwrap();
            // Shapefile field names are cut to 10 characters: Shape_Length -> Shape_Leng.
            let len_key = if ext == "shp" {
                "Shape_Leng"
            } else {
                "Shape_Length"
            };
            assert!(
                p1.extra["OBJECTID"].is_i64(),
                "{kind} {ext}: OBJECTID {:?}",
                p1.extra
            );
            assert_eq!(p1.extra["OBJECTID"], 1, "{kind} {ext}");
            assert!(p1.extra["Count"].is_i64(), "{kind} {ext}: {:?}", p1.extra);
            let len = p1.extra[len_key]
                .as_f64()
                .unwrap_or_else(|| panic!("{kind} {ext}: {:?}", p1.extra));
            // A DBF keeps fifteen decimals; the other formats the whole double.
            assert!((len - 20.092298898533).abs() < 1e-9, "{kind} {ext}: {len}");
            assert_eq!(p1.extra["Note"], "first", "{kind} {ext}");
            let p2 = got.iter().find(|f| f.id == "P-2").unwrap();
            if lossy {
                assert_eq!(
                    p2.extra.get("Note"),
                    None,
                    "{kind} {ext}: the blank came back a null, as said"
                );
            } else {
                assert_eq!(
                    p2.extra.get("Note").and_then(|v| v.as_str()),
                    Some(""),
                    "{kind} {ext}: a blank stays blank: {:?}",
                    p2.extra
                );
            }
            assert_eq!(
                p2.extra.get("Count"),
                None,
                "{kind} {ext}: a null number stays null"
            );
            let p3 = got.iter().find(|f| f.id == "P-3").unwrap();
            assert_eq!(
                p3.extra.get("Note"),
                None,
                "{kind} {ext}: a null stays null"
            );
        }
    }
}
