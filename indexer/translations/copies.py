"""Copies of one text in several languages (issue 34): a documentation page translated
(`i18n/zh-cn/...`, a Docusaurus version folder), and a translated module, one file a language
in a locale folder (zod's `locales/el.ts` beside `locales/en.ts`). Search folds each into one
slot; which file stands for the others is the ranking's business (rank/ranking.py)."""

from __future__ import annotations

import functools
import re

# A translated copy of a page: the folder naming the language, then the page's own path. What
# follows the language (less a Docusaurus plugin folder) is the path the original ends with.
_TRANSLATION = re.compile(
    r"(^|/)(i18n|locales?|l10n|translations?)/(?P<lang>[a-z]{2}([-_][A-Za-z]{2,4})?)/"
    r"(docusaurus-plugin-content-[a-z]+/current/|docusaurus-theme-[a-z-]+/)?(?P<tail>.+)$"
    r"|(^|/)(?P<lang2>(zh|ja|ko|fr|de|es|pt|ru|it)([-_][A-Za-z]{2,4})?)/(?P<tail2>.+\.mdx?)$"
    # a documentation site's page as of a released version (Docusaurus' versioned_docs/version-1.x/
    # beside docs/): the same page again, one slot for all its versions
    r"|(^|/)versioned_docs/version-[^/]+/(?P<tail3>.+)$",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=4096)  # rank() asks for each candidate against each hit kept
def translation_tail(relative_path: str) -> str | None:
    """For a translated copy, the path its original ends with; None for any other file."""
    m = _TRANSLATION.search(relative_path)
    if m is None:
        return None
    return m.group("tail") or m.group("tail2") or m.group("tail3")


# A translated module: one file per language in a locale folder, named by the language's code
# (zod's `locales/el.ts` beside `locales/en.ts`, Rails' `config/locales/de.yml`, dayjs' `locale/fr.js`).
# Each says the same messages in its own language: a question about those messages meets forty of
# them. The code is ISO 639-1's (two letters, a region or script after it): `lang/go.ts` beside
# `lang/js.ts` in a highlighter's folder names programming languages, not locales.
_LOCALE_FILE = re.compile(
    r"^(?P<folder>(?:.*/)?(?:locales?|i18n|l10n|translations?))/"
    r"(?P<code>[a-z]{2})(?:[-_][A-Za-z]{2,4})?\.[A-Za-z0-9]+$",
    re.IGNORECASE,
)
_ISO_639_1 = frozenset(
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy "
    "da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu "
    "hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb "
    "lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om "
    "or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw "
    "ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu".split()
)
# ... or by the language's English name in a `languages/` folder, as installers name them (tauri's
# NSIS `nsis/languages/Spanish.nsh`, `SimpChinese.nsh`, `PortugueseBR.nsh`; Inno Setup's
# `Languages/German.isl`): eighteen copies of the installer's strings.
_NAMED_LOCALE_FILE = re.compile(
    r"^(?P<folder>(?:.*/)?languages)/(?P<name>[A-Za-z]+)\.[A-Za-z0-9]+$", re.IGNORECASE
)
_NAMES_BY_CODE = {
        "ar": "Arabic", "bg": "Bulgarian", "ca": "Catalan", "cs": "Czech", "da": "Danish",
        "de": "German", "el": "Greek", "en": "English", "es": "Spanish SpanishInternational",
        "et": "Estonian", "fa": "Farsi Persian", "fi": "Finnish", "fr": "French", "he": "Hebrew",
        "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian", "it": "Italian",
        "ja": "Japanese", "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "nl": "Dutch",
        "no": "Norwegian", "pl": "Polish", "pt": "Portuguese PortugueseBR BrazilianPortuguese",
        "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian", "sr": "Serbian",
        "sv": "Swedish", "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "vi": "Vietnamese",
        "zh": "SimpChinese TradChinese ChineseSimplified ChineseTraditional Chinese",
}
_LANGUAGE_NAMES = {name.lower(): code for code, names in _NAMES_BY_CODE.items() for name in names.split()}
# The language a translated module is written from: its file represents the others.
SOURCE_LOCALE = "en"


@functools.lru_cache(maxsize=4096)
def locale_of(relative_path: str) -> tuple[str, str] | None:
    """(its folder, its language) for a translated module's file; None for any other file."""
    m = _LOCALE_FILE.match(relative_path)
    if m is not None and m.group("code").lower() in _ISO_639_1:
        return m.group("folder"), m.group("code").lower()
    n = _NAMED_LOCALE_FILE.match(relative_path)
    if n is not None and (code := _LANGUAGE_NAMES.get(n.group("name").lower())) is not None:
        return n.group("folder"), code
    return None


def sibling_in(relative_path: str, locale: str) -> str | None:
    """The path a translated module's file in `locale` has beside this one, in the same format
    (`locales/el.ts` -> `locales/en.ts`, `languages/Spanish.nsh` -> `languages/English.nsh`)."""
    lang = locale_of(relative_path)
    if lang is None:
        return None
    ext = relative_path.rsplit(".", 1)[-1]
    if _NAMED_LOCALE_FILE.match(relative_path) and not _LOCALE_FILE.match(relative_path):
        names = _NAMES_BY_CODE.get(locale)
        return f"{lang[0]}/{names.split()[0]}.{ext}" if names else None
    return f"{lang[0]}/{locale}.{ext}"


def same_page(a: str, b: str) -> bool:
    """Whether two paths are copies of one page, or of one translated module, in different
    languages."""
    la, lb = locale_of(a), locale_of(b)
    if la is not None and lb is not None:
        return la[0] == lb[0]
    ta, tb = translation_tail(a), translation_tail(b)
    if ta is None and tb is None:
        return False
    if ta is not None and tb is not None:
        return ta == tb
    original, tail = (b, ta) if ta is not None else (a, tb)
    return original == tail or original.endswith("/" + str(tail))
