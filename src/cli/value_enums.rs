//! The command-line side of the report choices: `report` knows what `--format` and `--color`
//! mean, the CLI knows how they are spelled, so the library does not depend on clap.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::report::{ColorChoice, Format};

impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            Format::Human,
            Format::Json,
            Format::Github,
            Format::Markdown,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            Format::Human => {
                PossibleValue::new("human").help("Diagnostics with source snippets, for people")
            }
            Format::Json => {
                PossibleValue::new("json").help("One JSON object on stdout, for programs")
            }
            Format::Github => PossibleValue::new("github")
                .help("GitHub Actions annotations (`::error file=…::…`)"),
            Format::Markdown => PossibleValue::new("markdown")
                .help("Markdown for a pull request comment or release notes (`capkg diff`)"),
        })
    }
}

impl ValueEnum for ColorChoice {
    fn value_variants<'a>() -> &'a [Self] {
        &[ColorChoice::Auto, ColorChoice::Always, ColorChoice::Never]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            ColorChoice::Auto => PossibleValue::new("auto")
                .help("Colour when writing to a terminal and `NO_COLOR` is not set"),
            ColorChoice::Always => PossibleValue::new("always"),
            ColorChoice::Never => PossibleValue::new("never"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_has_its_spelling() {
        for format in Format::value_variants() {
            let name = format.to_possible_value().map(|v| v.get_name().to_string());
            assert_eq!(
                Format::from_str(name.as_deref().unwrap_or(""), false).ok(),
                Some(*format)
            );
        }
        for color in ColorChoice::value_variants() {
            let name = color.to_possible_value().map(|v| v.get_name().to_string());
            assert_eq!(
                ColorChoice::from_str(name.as_deref().unwrap_or(""), false).ok(),
                Some(*color)
            );
        }
    }
}
