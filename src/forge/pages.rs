//! Lists that come in pages: a GitHub repository's releases, a GitLab project's packages, a
//! registry's tags. Each is read within two bounds, and reaching one is an error naming it and
//! the list, never a list silently cut short:
//!
//! - at most [`RetryPolicy::max_list_pages`] pages (`--max-list-pages`, `CAPKG_MAX_LIST_PAGES`);
//! - at most [`RetryPolicy::max_download`] bytes of pages in all (`--max-download`,
//!   `CAPKG_MAX_DOWNLOAD`): a list is held to the bound of one answer, so an endless list costs
//!   at most that bound (plus the page that passed it) however small its pages are.
//!
//! The next page is the `Link: <…>; rel="next"` of the page before, resolved against that page's
//! URL (registries write it as a path). It is read only on the origin (scheme, host, port) of the
//! first page: a list names no other host, so a server cannot turn capkg to another one, nor to
//! this machine or its network (the first page's origin is one the caller checked).

use std::future::Future;

use reqwest::Url;

use super::policy::RetryPolicy;
use super::url::same_origin;

/// One page of a list as the caller read it.
#[derive(Debug)]
pub(crate) struct Page<T> {
    pub items: Vec<T>,
    /// The size of the page's body, counted against the list's bytes bound.
    pub bytes: usize,
    /// The page's `Link` header, if any.
    pub link: Option<String>,
}

/// Why a list was not read to its end.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ListError {
    #[error(
        "could not {what}: the list goes on past {pages} pages, the most capkg reads of one list (`--max-list-pages`, CAPKG_MAX_LIST_PAGES)"
    )]
    TooManyPages { what: String, pages: usize },
    #[error(
        "could not {what}: its pages hold more than {limit} bytes in all, the most capkg reads of one list (`--max-download`, CAPKG_MAX_DOWNLOAD)"
    )]
    TooManyBytes { what: String, limit: u64 },
    #[error("could not {what}: its next page `{link}` is not a URL: {reason}")]
    BadLink {
        what: String,
        link: String,
        reason: String,
    },
    #[error(
        "could not {what}: its next page is on `{to}`, not on `{from}` where the list began; capkg reads a list from that one origin only"
    )]
    OtherOrigin {
        what: String,
        from: String,
        to: String,
    },
}

/// The `rel="next"` URL of a `Link` header, as written (absolute or a path).
pub(crate) fn next_page(link: Option<&str>) -> Option<String> {
    link?.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        params
            .split(';')
            .any(|p| p.trim() == "rel=\"next\"")
            .then(|| {
                target
                    .trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_string()
            })
    })
}

/// Every item of the list whose first page is `first`, `what` it is for messages ("list the
/// releases of `o/r`"): `fetch` reads one page; the bounds come from `policy`. A bound reached or
/// a next page elsewhere becomes `list_error`'s error.
pub(crate) async fn all_pages<T, E, F, Fut>(
    first: Url,
    what: &str,
    policy: &RetryPolicy,
    mut fetch: F,
    list_error: impl Fn(ListError) -> E,
) -> Result<Vec<T>, E>
where
    F: FnMut(Url) -> Fut,
    Fut: Future<Output = Result<Page<T>, E>>,
{
    let origin = first.clone();
    let mut url = first;
    let mut items = Vec::new();
    let mut bytes: u64 = 0;
    let mut pages = 0;
    loop {
        if pages == policy.max_list_pages {
            return Err(list_error(ListError::TooManyPages {
                what: what.to_string(),
                pages,
            }));
        }
        let page = fetch(url.clone()).await?;
        pages += 1;
        bytes = bytes.saturating_add(page.bytes as u64);
        if bytes > policy.max_download {
            return Err(list_error(ListError::TooManyBytes {
                what: what.to_string(),
                limit: policy.max_download,
            }));
        }
        items.extend(page.items);
        let Some(next) = next_page(page.link.as_deref()) else {
            return Ok(items);
        };
        let next_url = url.join(&next).map_err(|err| {
            list_error(ListError::BadLink {
                what: what.to_string(),
                link: next.chars().take(200).collect(),
                reason: err.to_string(),
            })
        })?;
        if !same_origin(&origin, &next_url) {
            return Err(list_error(ListError::OtherOrigin {
                what: what.to_string(),
                from: origin.origin().ascii_serialization(),
                to: next_url.origin().ascii_serialization(),
            }));
        }
        url = next_url;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_headers_give_the_next_page() {
        let link = r#"<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last""#;
        assert_eq!(
            next_page(Some(link)).as_deref(),
            Some("https://api.github.com/x?page=2")
        );
        assert_eq!(next_page(Some(r#"<https://x>; rel="prev""#)), None);
        assert_eq!(next_page(None), None);
    }

    /// A list whose every page links to the next, `size` bytes a page, read with `policy`.
    fn endless(policy: &RetryPolicy, size: usize, next: &str) -> Result<Vec<u32>, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let first = Url::parse("https://api.example/list?page=1").unwrap();
        runtime.block_on(all_pages(
            first,
            "list the things",
            policy,
            |_url| async move {
                Ok::<_, String>(Page {
                    items: vec![1],
                    bytes: size,
                    link: Some(format!("<{next}>; rel=\"next\"")),
                })
            },
            |err| err.to_string(),
        ))
    }

    #[test]
    fn an_endless_list_ends_at_the_page_bound_with_an_error() {
        let policy = RetryPolicy {
            max_list_pages: 7,
            ..RetryPolicy::default()
        };
        let err = endless(&policy, 10, "/list?page=2").unwrap_err();
        assert!(err.contains("past 7 pages"), "{err}");
        assert!(err.contains("--max-list-pages"), "{err}");
        assert!(err.contains("list the things"), "{err}");
    }

    #[test]
    fn a_list_is_held_to_the_bytes_bound_in_all() {
        let policy = RetryPolicy {
            max_download: 1000,
            ..RetryPolicy::default()
        };
        let err = endless(&policy, 300, "/list?page=2").unwrap_err();
        assert!(err.contains("more than 1000 bytes in all"), "{err}");
        assert!(err.contains("--max-download"), "{err}");
    }

    #[test]
    fn a_next_page_elsewhere_is_an_error_not_a_request() {
        let policy = RetryPolicy::default();
        for next in [
            "http://127.0.0.1:9/list?page=2",
            "https://other.example/list?page=2",
            "http://api.example/list?page=2",
            "https://api.example:444/list?page=2",
        ] {
            let err = endless(&policy, 10, next).unwrap_err();
            assert!(err.contains("where the list began"), "{next}: {err}");
        }
    }

    #[tokio::test]
    async fn the_pages_of_a_list_are_read_in_order_to_its_end() {
        let first = Url::parse("https://api.example/list").unwrap();
        let items = all_pages(
            first,
            "list",
            &RetryPolicy::default(),
            |url| async move {
                let page: u32 = url
                    .query_pairs()
                    .find(|(k, _)| k == "page")
                    .map_or(1, |(_, v)| v.parse().unwrap());
                Ok::<_, String>(Page {
                    items: vec![page],
                    bytes: 1,
                    link: (page < 3).then(|| format!("</list?page={}>; rel=\"next\"", page + 1)),
                })
            },
            |err| err.to_string(),
        )
        .await
        .unwrap();
        assert_eq!(items, [1, 2, 3]);
    }
}
