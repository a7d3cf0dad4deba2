//! The registry's domain: layers and their canonical fields, features, units, discharge
//! kinds and the geometry encoding shared by both stores. No I/O here.

pub mod discharge;
pub mod feature;
pub mod layer;
pub mod units;
pub mod wkb;

pub use feature::{Feature, Value};
pub use layer::{FieldSpec, FieldType, GeomKind, Layer};
pub use units::{Area, AreaUnit, Length, LengthUnit};
