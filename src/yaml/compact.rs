//! A scalar's text in 12 bytes and a collection's items in 11, both aligned to a byte, so that a
//! node's value fits in 12 bytes and a node in 20 ([`super::Node`]).
//!
//! A large file's tree is mostly nodes (a mapping entry is two), so every byte of a node is
//! counted millions of times (issue 17). The standard types do not fit: `Box<[T]>` is 16 bytes
//! and aligned to 8, and an enum of a small string and a box needs a byte more for its variant.
//! Here the text's last byte is an enum of 14 values (the inline length, or "on the heap"), whose
//! 242 unused values the compiler gives to the enclosing enums' variants; the items are a pointer
//! and a 3-byte length packed into the 11 bytes before it, and a tag's box is a pointer aligned to
//! a byte ([`PackedBox`]). A node is then its 8-byte span and this 12-byte value, aligned to 4:
//! 20 bytes, and a mapping entry 40.
//!
//! Most scalars of providers' components files are 11 bytes or shorter, and stay inline. A longer
//! text is shared (`Arc<str>`), and the loader gives equal texts one copy ([`SharedTexts`]): long
//! texts, mostly CustomResourceDefinitions' descriptions, repeat within a file (the same field
//! described in every version and every type). Figures: benches/README.md, "Why a packed 20-byte
//! node".

use std::fmt;
use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::Arc;

/// How many bytes of text a [`ScalarText`] keeps inline.
const INLINE: usize = 11;

/// A [`ScalarText`]'s last byte. An enum and not a `u8` so that the compiler knows the values it
/// never takes and can store the variant of an enum holding a `ScalarText` in them.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Last {
    Inline0 = 0,
    Inline1,
    Inline2,
    Inline3,
    Inline4,
    Inline5,
    Inline6,
    Inline7,
    Inline8,
    Inline9,
    Inline10,
    Inline11,
    /// An `Arc<str>`: its pointer and its length.
    Heap,
    /// An `Arc<str>` of [`LARGE`] bytes or more, in a box of its own: its length does not fit.
    Boxed,
}

// `Last`'s order is the layout: each inline variant's value is its length, and the two heap
// variants follow. `as_str` reads an inline text's length from the value.
const _: () = {
    let mut length = 0;
    while length <= INLINE {
        assert!(INLINE_LENGTHS[length] as usize == length);
        length += 1;
    }
    assert!(Last::Heap as usize == INLINE + 1 && Last::Boxed as usize == INLINE + 2);
};

/// The `Last` of an inline text of each length.
const INLINE_LENGTHS: [Last; INLINE + 1] = [
    Last::Inline0,
    Last::Inline1,
    Last::Inline2,
    Last::Inline3,
    Last::Inline4,
    Last::Inline5,
    Last::Inline6,
    Last::Inline7,
    Last::Inline8,
    Last::Inline9,
    Last::Inline10,
    Last::Inline11,
];

/// Bytes 0 to 8 of a heap text hold its pointer, 8 to 11 its length (3 bytes, little-endian);
/// the same for a collection's items.
const POINTER_BYTES: usize = std::mem::size_of::<*mut u8>();
const LENGTH_BYTES: usize = INLINE - POINTER_BYTES;

/// The lengths 3 bytes do not hold: a text or a collection this long (16 MiB, 16 M items, which
/// a YAML file under 512 MiB can have) is kept in a box of its own, which the pointer points to.
const LARGE: usize = (1 << (8 * LENGTH_BYTES)) - 1;

/// `length` as the 3 bytes kept, or `None` when it is [`LARGE`] or more.
fn pack_length(length: usize) -> Option<[u8; LENGTH_BYTES]> {
    if length >= LARGE {
        return None;
    }
    let bytes = (length as u64).to_le_bytes();
    let mut packed = [0u8; LENGTH_BYTES];
    packed.copy_from_slice(&bytes[..LENGTH_BYTES]);
    Some(packed)
}

fn unpack_length(packed: [u8; LENGTH_BYTES]) -> usize {
    let mut bytes = [0u8; 8];
    bytes[..LENGTH_BYTES].copy_from_slice(&packed);
    u64::from_le_bytes(bytes) as usize
}

/// A scalar's text: inline up to 11 bytes, else an `Arc<str>` that equal texts share.
///
/// The bytes are `MaybeUninit` so that a heap text's pointer keeps its provenance when the value
/// is moved or copied (a copy typed as `u8` would not carry it).
#[repr(C)]
pub struct ScalarText {
    data: [MaybeUninit<u8>; INLINE],
    last: Last,
}

// SAFETY: a `ScalarText` holds its text as an `Arc<str>` does, which is `Send`.
unsafe impl Send for ScalarText {}
// SAFETY: as for `Send` (`Arc<str>` is `Sync`); `&ScalarText` only reads.
unsafe impl Sync for ScalarText {}

impl ScalarText {
    /// The empty text.
    pub const fn empty() -> Self {
        Self {
            data: [MaybeUninit::new(0); INLINE],
            last: Last::Inline0,
        }
    }

    fn inline(text: &str) -> Self {
        debug_assert!(text.len() <= INLINE);
        let mut value = Self::empty();
        for (slot, byte) in value.data.iter_mut().zip(text.bytes()) {
            *slot = MaybeUninit::new(byte);
        }
        value.last = INLINE_LENGTHS[text.len()];
        value
    }

    fn heap(text: Arc<str>) -> Self {
        let length = pack_length(text.len());
        let (pointer, last) = match length {
            Some(_) => (Arc::into_raw(text).cast::<u8>().cast_mut(), Last::Heap),
            None => (Box::into_raw(Box::new(text)).cast::<u8>(), Last::Boxed),
        };
        // The pointer and length are written before the tag that says they are there, so that no
        // state with a heap tag over inline bytes ever exists, even between two statements.
        let mut value = Self::empty();
        // SAFETY: `data` has room for a pointer at 0; the write is unaligned as `data` is.
        unsafe {
            value
                .data
                .as_mut_ptr()
                .cast::<*mut u8>()
                .write_unaligned(pointer);
        }
        if let Some(length) = length {
            for (slot, byte) in value.data[POINTER_BYTES..].iter_mut().zip(length) {
                *slot = MaybeUninit::new(byte);
            }
        }
        value.last = last;
        value
    }

    /// The pointer a heap or boxed text holds.
    fn pointer(&self) -> *mut u8 {
        debug_assert!(matches!(self.last, Last::Heap | Last::Boxed));
        // SAFETY: `heap` wrote a pointer at 0.
        unsafe { self.data.as_ptr().cast::<*mut u8>().read_unaligned() }
    }

    /// The `Arc<str>` a heap text holds, as the raw pointer `Arc::into_raw` gave.
    fn heap_arc(&self) -> *const str {
        debug_assert!(self.last == Last::Heap);
        let mut length = [0u8; LENGTH_BYTES];
        for (byte, slot) in length.iter_mut().zip(&self.data[POINTER_BYTES..]) {
            // SAFETY: `heap` initialised the length's bytes.
            *byte = unsafe { slot.assume_init() };
        }
        std::ptr::slice_from_raw_parts(self.pointer().cast_const(), unpack_length(length))
            as *const str
    }

    /// The box a boxed text is in.
    fn boxed(&self) -> *mut Arc<str> {
        debug_assert!(self.last == Last::Boxed);
        self.pointer().cast::<Arc<str>>()
    }

    pub fn as_str(&self) -> &str {
        match self.last {
            // SAFETY: the `Arc<str>` that `heap` took, which this value keeps alive.
            Last::Heap => unsafe { &*self.heap_arc() },
            // SAFETY: the box `heap` made, which this value owns.
            Last::Boxed => unsafe { &*self.boxed() },
            inline => {
                let bytes = self.data.as_ptr().cast::<u8>();
                // SAFETY: `inline` initialised the first `inline as usize` bytes (the const
                // assertion on `Last` makes the value the length), which this value keeps.
                let bytes = unsafe { std::slice::from_raw_parts(bytes, inline as usize) };
                // SAFETY: they are the bytes of a `&str`, cut at its end.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
        }
    }

    /// The text as a `String` (a copy: a heap text may be shared).
    pub fn into_string(self) -> String {
        self.as_str().to_string()
    }
}

const _: () = assert!(LENGTH_BYTES == 3 && std::mem::size_of::<ScalarText>() == 12);

impl Drop for ScalarText {
    fn drop(&mut self) {
        match self.last {
            // SAFETY: `heap` made this pointer and length with `Arc::into_raw`, and this value
            // holds one count of it, given back once here.
            Last::Heap => drop(unsafe { Arc::from_raw(self.heap_arc()) }),
            // SAFETY: `heap` made this box, which this value owns and drops once here.
            Last::Boxed => drop(unsafe { Box::from_raw(self.boxed()) }),
            _ => {}
        }
    }
}

impl From<&str> for ScalarText {
    fn from(text: &str) -> Self {
        if text.len() <= INLINE {
            Self::inline(text)
        } else {
            Self::heap(Arc::from(text))
        }
    }
}

impl From<String> for ScalarText {
    fn from(text: String) -> Self {
        Self::from(text.as_str())
    }
}

impl Default for ScalarText {
    fn default() -> Self {
        Self::empty()
    }
}

impl Clone for ScalarText {
    /// A heap text is shared, not copied.
    fn clone(&self) -> Self {
        match self.last {
            // SAFETY: this value holds a count of the `Arc` (`heap`); the copy below holds one
            // more and gives it back when dropped.
            Last::Heap => unsafe { Arc::increment_strong_count(self.heap_arc()) },
            // SAFETY: the box `heap` made, which this value owns; the copy gets a box of its own.
            Last::Boxed => return Self::heap(Arc::clone(unsafe { &*self.boxed() })),
            _ => {}
        }
        // The bytes are copied as `MaybeUninit`, which keeps the pointer's provenance.
        Self {
            data: self.data,
            last: self.last,
        }
    }
}

/// A `Box<T>` aligned to a byte: its pointer, so that it fits in a byte-aligned value (a node's
/// rare tag and value, in the place of an untagged node's value).
#[repr(C, packed)]
pub(super) struct PackedBox<T> {
    pointer: NonNull<T>,
    owns: PhantomData<T>,
}

// SAFETY: `PackedBox<T>` owns its value as a `Box<T>` does.
unsafe impl<T: Send> Send for PackedBox<T> {}
// SAFETY: as for `Send`; `&PackedBox<T>` only gives out `&T`.
unsafe impl<T: Sync> Sync for PackedBox<T> {}

impl<T> PackedBox<T> {
    pub(super) fn new(value: T) -> Self {
        Self {
            pointer: NonNull::from(Box::leak(Box::new(value))),
            owns: PhantomData,
        }
    }

    pub(super) fn into_inner(self) -> T {
        let this = ManuallyDrop::new(self);
        let pointer = this.pointer;
        // SAFETY: `new` made this box, and `this` will not drop it again.
        *unsafe { Box::from_raw(pointer.as_ptr()) }
    }
}

impl<T> Drop for PackedBox<T> {
    fn drop(&mut self) {
        let pointer = self.pointer;
        // SAFETY: `new` made this box, dropped once here.
        drop(unsafe { Box::from_raw(pointer.as_ptr()) });
    }
}

impl<T> Deref for PackedBox<T> {
    type Target = T;

    fn deref(&self) -> &T {
        let pointer = self.pointer;
        // SAFETY: the live box `new` made, borrowed for as long as `self` is.
        unsafe { pointer.as_ref() }
    }
}

impl<T> DerefMut for PackedBox<T> {
    fn deref_mut(&mut self) -> &mut T {
        let mut pointer = self.pointer;
        // SAFETY: as for `deref`, borrowed mutably for as long as `self` is.
        unsafe { pointer.as_mut() }
    }
}

impl<T: Clone> Clone for PackedBox<T> {
    fn clone(&self) -> Self {
        Self::new((**self).clone())
    }
}

impl<T: PartialEq> PartialEq for PackedBox<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

/// The long texts one loader has made, so that an equal text is shared rather than copied: the
/// loader asks here for every scalar's text ([`SharedTexts::text`]).
///
/// Hashed with foldhash, seeded at random per process, so that a file cannot be written to make
/// the lookups collide without knowing the seed; SipHash cost the sharing more than twice as
/// many instructions (benches/README.md, "Why a packed 20-byte node").
#[derive(Default)]
pub(super) struct SharedTexts {
    seen: std::collections::HashSet<Arc<str>, foldhash::fast::RandomState>,
}

impl SharedTexts {
    /// `text` as a scalar's text: inline when short, else the copy made for an equal text
    /// before, or a new one that later equal texts share.
    pub(super) fn text(&mut self, text: &str) -> ScalarText {
        if text.len() <= INLINE {
            return ScalarText::inline(text);
        }
        if let Some(seen) = self.seen.get(text) {
            return ScalarText::heap(Arc::clone(seen));
        }
        let new: Arc<str> = Arc::from(text);
        self.seen.insert(Arc::clone(&new));
        ScalarText::heap(new)
    }
}

impl Deref for ScalarText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ScalarText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for ScalarText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ScalarText {}

impl PartialEq<str> for ScalarText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ScalarText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::hash::Hash for ScalarText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for ScalarText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ScalarText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

/// A collection's items: a `Box<[T]>` as a pointer and a 3-byte length, aligned to a byte (from
/// [`LARGE`] items on, a pointer to the `Box<[T]>`, in a box of its own). They never grow after
/// loading; a transformation's few insertions go through [`Items::edit`].
#[repr(C, packed)]
pub struct Items<T> {
    pointer: NonNull<T>,
    length: [u8; LENGTH_BYTES],
    owns: PhantomData<T>,
}

// SAFETY: `Items<T>` owns its items as a `Box<[T]>` does.
unsafe impl<T: Send> Send for Items<T> {}
// SAFETY: as for `Send`; `&Items<T>` only gives out `&T`.
unsafe impl<T: Sync> Sync for Items<T> {}

impl<T> Items<T> {
    /// The box holding the items' `Box<[T]>`, when there are [`LARGE`] of them or more.
    fn large(&self) -> Option<NonNull<Box<[T]>>> {
        let length = self.length;
        (unpack_length(length) == LARGE).then(|| self.pointer.cast::<Box<[T]>>())
    }

    pub fn len(&self) -> usize {
        match self.large() {
            // SAFETY: `From<Vec<T>>` made this box, which `self` owns.
            Some(outer) => unsafe { outer.as_ref() }.len(),
            None => unpack_length(self.length),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn into_vec(self) -> Vec<T> {
        let this = ManuallyDrop::new(self);
        let pointer = this.pointer;
        match this.large() {
            // SAFETY: `From<Vec<T>>` made this box, and `this` will not drop it again.
            Some(outer) => unsafe { *Box::from_raw(outer.as_ptr()) }.into_vec(),
            // SAFETY: `From<Vec<T>>` made this pointer and length from a `Box<[T]>`, and `this`
            // will not drop it again.
            None => unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    pointer.as_ptr(),
                    unpack_length(this.length),
                ))
            }
            .into_vec(),
        }
    }

    /// Changes the items as a `Vec`. They are packed without spare room, so each change moves
    /// them into a `Vec` and back: for a transformation's few insertions, not for building.
    pub fn edit<R>(&mut self, change: impl FnOnce(&mut Vec<T>) -> R) -> R {
        let mut items = std::mem::take(self).into_vec();
        let result = change(&mut items);
        *self = Items::from(items);
        result
    }
}

impl<T> From<Vec<T>> for Items<T> {
    fn from(items: Vec<T>) -> Self {
        let (pointer, length) = match pack_length(items.len()) {
            Some(length) => (
                NonNull::from(Box::leak(items.into_boxed_slice())).cast::<T>(),
                length,
            ),
            None => (
                NonNull::from(Box::leak(Box::new(items.into_boxed_slice()))).cast::<T>(),
                [u8::MAX; LENGTH_BYTES],
            ),
        };
        Self {
            pointer,
            length,
            owns: PhantomData,
        }
    }
}

impl<T> FromIterator<T> for Items<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T> Drop for Items<T> {
    fn drop(&mut self) {
        let pointer = self.pointer;
        match self.large() {
            // SAFETY: `From<Vec<T>>` made this box, dropped once here.
            Some(outer) => drop(unsafe { Box::from_raw(outer.as_ptr()) }),
            // SAFETY: `From<Vec<T>>` made this pointer and length from a `Box<[T]>`, dropped once.
            None => drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    pointer.as_ptr(),
                    unpack_length(self.length),
                ))
            }),
        }
    }
}

impl<T> Deref for Items<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        let pointer = self.pointer;
        match self.large() {
            // SAFETY: `From<Vec<T>>` made this box, which `self` owns, borrowed for as long as
            // `self` is.
            Some(outer) => unsafe { outer.as_ref() },
            // SAFETY: a live `Box<[T]>`'s pointer and length, borrowed for as long as `self` is.
            None => unsafe {
                std::slice::from_raw_parts(pointer.as_ptr(), unpack_length(self.length))
            },
        }
    }
}

impl<T> DerefMut for Items<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        let pointer = self.pointer;
        match self.large() {
            // SAFETY: as for `deref`, borrowed mutably for as long as `self` is.
            Some(mut outer) => unsafe { outer.as_mut() },
            // SAFETY: as for `deref`, borrowed mutably for as long as `self` is.
            None => unsafe {
                std::slice::from_raw_parts_mut(pointer.as_ptr(), unpack_length(self.length))
            },
        }
    }
}

impl<T> Default for Items<T> {
    fn default() -> Self {
        Self::from(Vec::new())
    }
}

impl<T: Clone> Clone for Items<T> {
    fn clone(&self) -> Self {
        Self::from(self.to_vec())
    }
}

impl<T: PartialEq> PartialEq for Items<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: fmt::Debug> fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T> IntoIterator for Items<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a, T> IntoIterator for &'a Items<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Items<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn texts_read_back_inline_and_on_the_heap() {
        for text in [
            "",
            "a",
            "ten bytes!",   // INLINE - 1
            "eleven byte",  // INLINE: the longest inline text
            "twelve bytes", // INLINE + 1: the shortest heap text
            "é",
            "ééééé",  // 10 bytes
            "éééééé", // 12 bytes: a two-byte character across the inline boundary
            "cluster.x-k8s.io/provider",
            "a much longer description, as CustomResourceDefinitions have on every field",
        ] {
            let value = ScalarText::from(text);
            assert_eq!(value.as_str(), text);
            assert_eq!(value.last == Last::Heap, text.len() > INLINE, "{text}");
            assert_eq!(ScalarText::from(text.to_string()), text);
            let mut spare = String::with_capacity(text.len() + 30);
            spare.push_str(text);
            assert_eq!(ScalarText::from(spare).as_str(), text);
            let copy = value.clone();
            drop(value);
            assert_eq!(copy, text);
            assert_eq!(format!("{copy:?}"), format!("{text:?}"));
        }
        assert_eq!(ScalarText::default(), "");
        assert_eq!(ScalarText::empty().len(), 0);
    }

    #[test]
    fn equal_long_texts_share_one_copy() {
        let mut texts = SharedTexts::default();
        let long = "a field described the same way in every version of a CRD";
        let first = texts.text(long);
        // An equal text elsewhere in memory, as the next document's scanner would give it.
        let elsewhere = String::from(long);
        let second = texts.text(&elsewhere);
        let other = texts.text("another description, as long as the first one");
        assert_eq!((first.as_str(), second.as_str()), (long, long));
        assert_eq!(first.as_ptr(), second.as_ptr());
        assert_ne!(first.as_ptr(), other.as_ptr());
        // Short texts stay inline, each in its own value.
        let (a, b) = (texts.text("eleven byte"), texts.text("eleven byte"));
        assert!(a.last == Last::Inline11);
        assert_ne!(a.as_ptr(), b.as_ptr());
        // The text outlives the table and every other holder.
        drop(texts);
        drop(first);
        assert_eq!(second, long);
        // A copy shares the text too; each value gives its count back once.
        let copy = second.clone();
        assert_eq!(copy.as_ptr(), second.as_ptr());
        drop(second);
        assert_eq!(copy, long);
        assert_eq!(copy.clone().into_string(), long);
        let shared = Arc::<str>::from(long);
        let held = ScalarText::heap(Arc::clone(&shared));
        let copies: Vec<ScalarText> = (0..3).map(|_| held.clone()).collect();
        assert_eq!(Arc::strong_count(&shared), 5);
        drop(copies);
        drop(held);
        assert_eq!(Arc::strong_count(&shared), 1);
    }

    #[test]
    fn lengths_past_three_bytes_are_kept_in_a_box() {
        // 16 MiB - 1 and more: a YAML file under 512 MiB can hold such a text or collection.
        for length in [LARGE - 1, LARGE, LARGE + 1] {
            let text = "x".repeat(length);
            let value = ScalarText::from(text.as_str());
            assert!(
                value.last
                    == if length < LARGE {
                        Last::Heap
                    } else {
                        Last::Boxed
                    }
            );
            assert_eq!(value.len(), length);
            let copy = value.clone();
            drop(value);
            assert!(copy.as_str() == text);
            assert_eq!(copy.into_string().len(), length);

            let mut items = Items::from(vec![7u8; length]);
            assert_eq!(
                (items.len(), items.large().is_some()),
                (length, length >= LARGE)
            );
            items[length - 1] = 8;
            assert_eq!((items[0], items[length - 1]), (7, 8));
            let copy = items.clone();
            let grown = items.edit(|items| {
                items.push(9);
                items.len()
            });
            assert_eq!(
                (grown, items.len(), items[length]),
                (length + 1, length + 1, 9)
            );
            assert_eq!(copy.into_vec().len(), length);
            // Miri checks the layout's pointers above; a byte-by-byte scan of 16 MiB interpreted
            // would take it an hour.
            if cfg!(miri) {
                let items = items.into_vec();
                assert_eq!((items[length - 2], items[length]), (7, 9));
            } else {
                assert_eq!(items.into_iter().filter(|&b| b == 7).count(), length - 1);
            }
        }
    }

    #[test]
    fn a_packed_box_owns_its_value() {
        let counted = Rc::new(());
        let mut boxed = PackedBox::new((counted.clone(), 1));
        boxed.1 += 1;
        let copy = boxed.clone();
        assert_eq!((copy.1, Rc::strong_count(&counted)), (2, 3));
        drop(boxed);
        assert_eq!(Rc::strong_count(&counted), 2);
        let (inner, number) = copy.into_inner();
        assert_eq!((number, Rc::strong_count(&counted)), (2, 2));
        drop(inner);
        assert_eq!(Rc::strong_count(&counted), 1);
        assert_eq!(std::mem::size_of::<PackedBox<u64>>(), 8);
        assert_eq!(std::mem::align_of::<PackedBox<u64>>(), 1);
    }

    #[test]
    fn texts_move_between_threads() {
        let long = ScalarText::from("a text of more than fifteen bytes");
        let back = std::thread::spawn(move || long).join().expect("thread");
        assert_eq!(back, "a text of more than fifteen bytes");
    }

    #[test]
    fn items_own_their_elements() {
        let counted = Rc::new(());
        let items: Items<Rc<()>> = (0..5).map(|_| counted.clone()).collect();
        assert_eq!((items.len(), Rc::strong_count(&counted)), (5, 6));
        let copy = items.clone();
        assert_eq!(Rc::strong_count(&counted), 11);
        drop(items);
        assert_eq!(Rc::strong_count(&counted), 6);
        let mut grown = copy.into_vec();
        grown.push(counted.clone());
        let grown = Items::from(grown);
        assert_eq!((grown.len(), Rc::strong_count(&counted)), (6, 7));
        assert_eq!(grown.into_iter().count(), 6);
        assert_eq!(Rc::strong_count(&counted), 1);
    }

    #[test]
    fn items_read_and_write_as_slices() {
        let mut items = Items::from(vec![3, 1, 2]);
        items.sort_unstable();
        assert_eq!(&*items, &[1, 2, 3]);
        for item in &mut items {
            *item *= 10;
        }
        assert_eq!((&items).into_iter().sum::<i32>(), 60);
        assert_eq!(items, Items::from(vec![10, 20, 30]));
        assert_eq!(format!("{items:?}"), "[10, 20, 30]");
        let empty = Items::<String>::default();
        assert!(empty.is_empty() && empty.into_vec().is_empty());
    }

    #[test]
    fn items_are_edited_as_a_vec() {
        let mut items = Items::from(vec![String::from("a"), String::from("c")]);
        let length = items.edit(|items| {
            items.insert(1, String::from("b"));
            items.len()
        });
        assert_eq!(length, 3);
        assert_eq!(&*items, &["a", "b", "c"]);
        items.edit(|items| items.clear());
        assert!(items.is_empty());
    }

    #[test]
    fn enums_keep_their_variant_in_the_text_s_spare_values() {
        #[allow(dead_code)]
        enum Value {
            Text(ScalarText),
            List(Items<u64>),
            Pairs(Items<(u64, u64)>),
        }
        assert_eq!(std::mem::size_of::<Items<u64>>(), 11);
        assert_eq!(std::mem::size_of::<Value>(), 12);
        assert_eq!(std::mem::size_of::<Option<Value>>(), 12);
    }
}
