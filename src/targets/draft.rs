//! Drafts: where `capkg release --draft` leaves a release nobody installs from yet, and the check
//! `capkg promote` holds a draft to before making it public.

use super::{Error, PublishFile};
use crate::checksums::{self, CHECKSUMS_FILE};
use crate::provenance::{self, STATEMENT_FILE};

/// What `release --draft` left at a target, as [`Target::read_draft`](super::Target::read_draft) found it.
#[derive(Debug, Clone)]
pub(crate) struct Drafted {
    /// Where it was read (a folder, a tag, a package version, a release page), for messages.
    pub location: String,
    pub files: Vec<PublishFile>,
}

/// Where `release --draft` puts a version that nobody installs from yet: the local folder, the
/// OCI tag and the GitLab package version `draft-v1.2.3`. clusterctl and cluster-api-operator
/// read only semantic versions (a local folder, a URL's version) or the tag named by
/// `spec.version`, and `draft-…` is neither, so none of them ever picks a draft.
pub(crate) fn draft_name(name: &str) -> String {
    format!("{DRAFT_PREFIX}{name}")
}

/// The prefix of [`draft_name`].
const DRAFT_PREFIX: &str = "draft-";

/// The release files of a draft, each byte for byte what its `checksums.txt` lists: the list
/// `release --draft` published with it is the plan `capkg promote` holds the draft to. A file
/// changed, missing or added since is refused, named.
pub(crate) fn check_draft(drafted: Drafted) -> Result<Vec<PublishFile>, Error> {
    let changed = |name: &str, reason: String| Error::DraftChanged {
        name: name.to_string(),
        location: drafted.location.clone(),
        reason,
    };
    let Some(list) = drafted.files.iter().find(|f| f.name == CHECKSUMS_FILE) else {
        return Err(changed(
            CHECKSUMS_FILE,
            "is missing, so the draft cannot be checked".into(),
        ));
    };
    let entries = checksums::parse(&list.contents)
        .map_err(|e| changed(CHECKSUMS_FILE, format!("cannot be read ({e})")))?;
    for entry in &entries {
        match drafted.files.iter().find(|f| f.name == entry.name) {
            None => return Err(changed(&entry.name, "is listed but missing".into())),
            Some(file) if file.sha256 != entry.sha256 => {
                return Err(changed(
                    &entry.name,
                    format!(
                        "has SHA-256 {}, the draft's list says {}",
                        file.sha256, entry.sha256
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    // The provenance statement names checksums.txt, so it is not in it: its own subjects must
    // be the draft's files, as they were planned.
    if let Some(statement) = drafted.files.iter().find(|f| f.name == STATEMENT_FILE) {
        let parsed = provenance::Parsed::parse(&statement.contents)
            .map_err(|e| changed(STATEMENT_FILE, format!("cannot be read ({e})")))?;
        for subject in &parsed.subjects {
            match drafted.files.iter().find(|f| f.name == subject.name) {
                Some(file) if file.sha256 == subject.sha256 => {}
                Some(file) => {
                    return Err(changed(
                        &subject.name,
                        format!(
                            "has SHA-256 {}, the draft's provenance statement says {}",
                            file.sha256, subject.sha256
                        ),
                    ));
                }
                None => {
                    return Err(changed(
                        &subject.name,
                        "is named by the draft's provenance statement but missing".into(),
                    ));
                }
            }
        }
    }
    if let Some(extra) = drafted.files.iter().find(|f| {
        f.name != CHECKSUMS_FILE
            && f.name != STATEMENT_FILE
            && !entries.iter().any(|e| e.name == f.name)
    }) {
        return Err(changed(&extra.name, "is not in the draft's list".into()));
    }
    Ok(drafted.files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drafted(files: &[(&str, &[u8])]) -> Drafted {
        Drafted {
            location: "repo/draft-v1.2.3".into(),
            files: files
                .iter()
                .map(|(name, bytes)| PublishFile::from_bytes(name, bytes.to_vec()))
                .collect(),
        }
    }

    fn listed(files: &[(&str, &[u8])]) -> Vec<u8> {
        checksums::write(files.iter().copied())
            .unwrap()
            .into_bytes()
    }

    fn refusal(result: Result<Vec<PublishFile>, Error>) -> String {
        match result {
            Err(error @ Error::DraftChanged { .. }) => {
                assert!(crate::error::Classified::is_refusal(&error));
                error.to_string()
            }
            other => panic!("not refused as changed: {other:?}"),
        }
    }

    #[test]
    fn a_draft_as_its_list_says_is_its_files() {
        let files: [(&str, &[u8]); 2] = [
            ("metadata.yaml", b"m"),
            ("infrastructure-components.yaml", b"c"),
        ];
        let list = listed(&files);
        let all = [files[0], files[1], (CHECKSUMS_FILE, list.as_slice())];
        let checked = check_draft(drafted(&all)).unwrap();
        assert_eq!(checked.len(), 3);
    }

    #[test]
    fn a_changed_missing_added_or_unlisted_file_is_refused_by_name() {
        let files: [(&str, &[u8]); 2] = [
            ("metadata.yaml", b"m"),
            ("infrastructure-components.yaml", b"c"),
        ];
        let list = listed(&files);
        let list = list.as_slice();

        let changed = refusal(check_draft(drafted(&[
            ("metadata.yaml", b"m"),
            ("infrastructure-components.yaml", b"changed"),
            (CHECKSUMS_FILE, list),
        ])));
        assert!(
            changed.starts_with("the draft at `repo/draft-v1.2.3` was changed since `capkg release --draft`: `infrastructure-components.yaml` has SHA-256"),
            "{changed}"
        );
        let missing = refusal(check_draft(drafted(&[
            ("metadata.yaml", b"m"),
            (CHECKSUMS_FILE, list),
        ])));
        assert!(
            missing.contains("`infrastructure-components.yaml` is listed but missing"),
            "{missing}"
        );
        let added = refusal(check_draft(drafted(&[
            files[0],
            files[1],
            ("cluster-template.yaml", b"t"),
            (CHECKSUMS_FILE, list),
        ])));
        assert!(
            added.contains("`cluster-template.yaml` is not in the draft's list"),
            "{added}"
        );
        let unlisted = refusal(check_draft(drafted(&files)));
        assert!(
            unlisted.contains("`checksums.txt` is missing"),
            "{unlisted}"
        );
        let unreadable = refusal(check_draft(drafted(&[
            files[0],
            (CHECKSUMS_FILE, b"not a list\n"),
        ])));
        assert!(
            unreadable.contains("`checksums.txt` cannot be read (line 1"),
            "{unreadable}"
        );
    }

    #[test]
    fn drafts_are_named_so_that_no_reader_takes_them_for_a_version() {
        let name = draft_name("v1.2.3");
        assert_eq!(name, "draft-v1.2.3");
        assert!(crate::version::Version::parse(&name).is_err());
    }
}
