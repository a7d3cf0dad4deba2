//! The words of an inspection: its kind (each of one kind of asset) and, for an
//! outfall's dry-weather screening, its characterisation.

use super::words::words;
use super::Layer;

words! {
    /// The kinds of inspection.
    pub enum InspectionKind ("an inspection kind") {
        /// An outfall's dry-weather screening.
        DryWeatherScreening = "dry_weather_screening",
        /// A structural SMP's maintenance inspection.
        SmpMaintenance = "smp_maintenance",
        /// A catch basin's cleaning.
        CatchBasinCleaning = "catch_basin_cleaning",
    }
}

impl InspectionKind {
    /// The layer of the assets it inspects.
    pub const fn layer(self) -> Layer {
        match self {
            InspectionKind::DryWeatherScreening => Layer::Outfalls,
            InspectionKind::SmpMaintenance => Layer::Smps,
            InspectionKind::CatchBasinCleaning => Layer::CatchBasins,
        }
    }
}

words! {
    /// What a screening made of an outfall's discharge, mildest first (the Outfall
    /// Reconnaissance Inventory's overall characterisation).
    pub enum Characterisation ("a characterisation") {
        /// Unlikely to be illicit.
        Unlikely = "unlikely",
        /// Potential: some indicators.
        Potential = "potential",
        /// Suspect: indicators of sewage or wash water.
        Suspect = "suspect",
        /// Obvious: an illicit discharge plainly seen.
        Obvious = "obvious",
    }
}

impl Characterisation {
    /// Whether it opens a case: suspect or obvious.
    pub const fn opens_case(self) -> bool {
        matches!(self, Characterisation::Suspect | Characterisation::Obvious)
    }
}
