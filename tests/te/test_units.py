"""Tests for cotaudit.te.units: TE-37 registry, TE-38 parser and count nouns, TE-40 compatibility."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.te import units, unittable
from cotaudit.te.units import (
    DIMENSIONLESS,
    IRREGULAR_PLURALS,
    UnitSyntaxError,
    UnitVec,
    format_unit,
    parse_unit,
    singularize,
    unit_ratio,
)

UNITS_PY = Path(units.__file__)
UNITTABLE_PY = Path(unittable.__file__)

# ---- TE-37: every group of the curated table resolves, with exact factors ----------------------

LENGTH = "[length]"
VOLUME = "[length]**3"
# name -> (dimensionality, exact factor to base units)
TE37_TABLE: dict[str, tuple[str, str]] = {
    **dict.fromkeys(["m", "meter", "meters"], (LENGTH, "1")),
    "km": (LENGTH, "1000"),
    "cm": (LENGTH, "0.01"),
    "mm": (LENGTH, "0.001"),
    **dict.fromkeys(["mile", "miles", "mi"], (LENGTH, "1609.344")),
    **dict.fromkeys(["ft", "foot", "feet"], (LENGTH, "0.3048")),
    **dict.fromkeys(["inch", "inches"], (LENGTH, "0.0254")),
    **dict.fromkeys(["yard", "yards", "yd"], (LENGTH, "0.9144")),
    **dict.fromkeys(["g", "gram", "grams"], ("[mass]", "0.001")),
    "kg": ("[mass]", "1"),
    "mg": ("[mass]", "0.000001"),
    **dict.fromkeys(["lb", "pound", "pounds"], ("[mass]", "0.45359237")),
    **dict.fromkeys(["oz", "ounce", "ounces"], ("[mass]", "0.45359237/16")),
    "tonne": ("[mass]", "1000"),
    **dict.fromkeys(["s", "sec", "second", "seconds"], ("[time]", "1")),
    **dict.fromkeys(["min", "minute", "minutes"], ("[time]", "60")),
    **dict.fromkeys(["h", "hr", "hour", "hours"], ("[time]", "3600")),
    **dict.fromkeys(["day", "days"], ("[time]", "86400")),
    **dict.fromkeys(["week", "weeks"], ("[time]", "604800")),
    **dict.fromkeys(["month", "months"], ("[time]", "31557600/12")),
    **dict.fromkeys(["year", "years"], ("[time]", "31557600")),
    **dict.fromkeys(["L", "liter", "liters"], (VOLUME, "0.001")),
    "mL": (VOLUME, "0.000001"),
    **dict.fromkeys(["gallon", "gallons"], (VOLUME, "0.003785411784")),
    **dict.fromkeys(["quart", "quarts"], (VOLUME, "0.003785411784/4")),
    **dict.fromkeys(["pint", "pints"], (VOLUME, "0.003785411784/8")),
    **dict.fromkeys(["cup", "cups"], (VOLUME, "0.003785411784/16")),
    **dict.fromkeys(["tablespoon", "tablespoons"], (VOLUME, "0.003785411784/256")),
    **dict.fromkeys(["teaspoon", "teaspoons"], (VOLUME, "0.003785411784/768")),
    "m2": ("[length]**2", "1"),
    "m3": (VOLUME, "1"),
    "cm2": ("[length]**2", "0.0001"),
    **dict.fromkeys(["ft2", "sq_ft"], ("[length]**2", "0.09290304")),
    "mph": ("[length]/[time]", "1609.344/3600"),
    "kph": ("[length]/[time]", "1000/3600"),
    "N": ("[length]*[mass]/[time]**2", "1"),
    "J": ("[length]**2*[mass]/[time]**2", "1"),
    "W": ("[length]**2*[mass]/[time]**3", "1"),
    "Pa": ("[mass]/[length]/[time]**2", "1"),
    "A": ("[current]", "1"),
    "V": ("[length]**2*[mass]/[current]/[time]**3", "1"),
    "K": ("[temperature]", "1"),
    **dict.fromkeys(["bit", "bits"], ("[information]", "1")),
    **dict.fromkeys(["byte", "bytes"], ("[information]", "8")),
    **dict.fromkeys(["USD", "dollar", "dollars", "$"], ("[currency_USD]", "1")),
    **dict.fromkeys(["cent", "cents"], ("[currency_USD]", "0.01")),
    **{c: (f"[currency_{c}]", "1") for c in ["EUR", "GBP", "JPY", "INR", "CNY"]},
    **dict.fromkeys(
        ["percent", "%", "degree", "degrees", "rad", "radian", "radians", "turn", "1", "dimensionless"],
        ("dimensionless", "1"),
    ),
    "degC": ("[temperature_degC]", "1"),
    "degF": ("[temperature_degF]", "1"),
}


def exact(text: str) -> Fraction:
    num, _, den = text.partition("/")
    return Fraction(num) / Fraction(den or "1")


@pytest.mark.parametrize(("name", "expected"), sorted(TE37_TABLE.items()))
def test_te37_table_resolves_exactly(name: str, expected: tuple[str, str]) -> None:
    dims, factor = expected
    u = parse_unit(name)
    assert u.dimensionality() == dims
    assert type(u.factor) is Fraction
    assert u.factor == exact(factor)
    assert u.dimensionless == (dims == "dimensionless")


def test_alias_table_matches_what_pint_defines() -> None:
    # The module reads units.txt itself (no pint); pint given the same file must agree.
    registry = unittable._registry()
    ours = {n for n, target in unittable.alias_table().items() if target == n and n != "1"}
    assert ours == set(registry._units)
    for name in unittable.alias_table():
        assert isinstance(parse_unit(name), UnitVec)


def test_each_base_dimension_has_one_root_unit() -> None:
    # factor "to base units" is pint's factor to root units only if roots are unique per dimension
    from pint.util import UnitsContainer

    registry = unittable._registry()
    roots: dict[str, set[str]] = {}
    for name in unittable.alias_table():
        if name in {"1", "$", "%", "dimensionless"}:
            continue
        _, root = registry.get_root_units(UnitsContainer({name: 1}))
        for unit_name in root._units:
            dims = registry.get_dimensionality(UnitsContainer({unit_name: 1}))
            roots.setdefault(str(dict(dims)), set()).add(unit_name)
    assert all(len(names) == 1 for names in roots.values()), roots


def test_registry_file_documents_its_purpose() -> None:
    header = (UNITS_PY.parent / "data" / "units.txt").read_text(encoding="utf-8")[:2000]
    assert "TE-37" in header
    assert "default registry" in header
    for trap in ["mats", "cats", "pins", "candles", "units", "bars", "quarters", "hand", "point"]:
        assert trap in header


def test_currencies_are_separate_dimensions() -> None:
    currencies = ["USD", "EUR", "GBP", "JPY", "INR", "CNY"]
    for a in currencies:
        for b in currencies:
            assert parse_unit(a).compatible(parse_unit(b)) == (a == b)
            assert (unit_ratio(parse_unit(a), parse_unit(b)) is None) == (a != b)
    assert unit_ratio(parse_unit("cent"), parse_unit("USD")) == Fraction(1, 100)


def test_temperatures_do_not_convert() -> None:
    k, c, f = parse_unit("K"), parse_unit("degC"), parse_unit("degF")
    assert unit_ratio(k, c) is None and unit_ratio(c, f) is None and unit_ratio(k, f) is None


@pytest.mark.parametrize("label", ["percent", "%", "degree", "degrees", "rad", "radians", "turn", "1"])
def test_labels_are_dimensionless_factor_one(label: str) -> None:
    assert parse_unit(label) == DIMENSIONLESS
    assert parse_unit(label).compatible(parse_unit("dimensionless"))


@pytest.mark.parametrize(
    "trap",
    [
        "mats",
        "cats",
        "pins",
        "candles",
        "units",
        "bars",
        "bags",
        "quarters",
        "hand",
        "hands",
        "point",
        "points",
    ],
)
def test_pint_default_registry_traps_are_count_nouns(trap: str) -> None:
    u = parse_unit(trap)
    assert u.dimensionality() == f"[count:{singularize(trap)}]"
    assert u.factor == 1


# ---- TE-38: singularization -----------------------------------------------------------------

# Copied from te.md TE-38; the module's table must be exactly this.
SPEC_IRREGULAR = {
    "calves": "calf", "elves": "elf", "halves": "half", "hooves": "hoof", "knives": "knife",
    "leaves": "leaf", "lives": "life", "loaves": "loaf", "scarves": "scarf", "shelves": "shelf",
    "thieves": "thief", "wives": "wife", "wolves": "wolf",
    "buffaloes": "buffalo", "dominoes": "domino", "echoes": "echo", "heroes": "hero",
    "mangoes": "mango", "mosquitoes": "mosquito", "potatoes": "potato", "tomatoes": "tomato",
    "volcanoes": "volcano",
    "aunties": "auntie", "brownies": "brownie", "calories": "calorie", "cookies": "cookie",
    "goalies": "goalie", "hoodies": "hoodie", "movies": "movie", "pixies": "pixie",
    "prairies": "prairie", "rookies": "rookie", "selfies": "selfie", "smoothies": "smoothie",
    "veggies": "veggie", "zombies": "zombie",
    "analyses": "analysis", "atlases": "atlas", "bonuses": "bonus", "buses": "bus", "busses": "bus",
    "cactuses": "cactus", "caches": "cache", "campuses": "campus", "canvases": "canvas",
    "circuses": "circus", "crises": "crisis", "gases": "gas", "headaches": "headache",
    "lenses": "lens", "niches": "niche", "octopuses": "octopus", "quizzes": "quiz",
    "statuses": "status", "theses": "thesis", "viruses": "virus", "walruses": "walrus",
    "bikinis": "bikini", "emus": "emu", "gurus": "guru", "haikus": "haiku", "kiwis": "kiwi",
    "martinis": "martini", "menus": "menu", "safaris": "safari", "skis": "ski", "taxis": "taxi",
    "cacti": "cactus", "children": "child", "dice": "die", "fungi": "fungus", "geese": "goose",
    "men": "man", "mice": "mouse", "oxen": "ox", "people": "person", "teeth": "tooth",
    "women": "woman",
    "atlas": "atlas", "canvas": "canvas", "gas": "gas", "lens": "lens", "means": "means",
    "news": "news", "series": "series", "species": "species",
}  # fmt: skip


def test_irregular_table_is_the_spec_table() -> None:
    assert dict(IRREGULAR_PLURALS) == SPEC_IRREGULAR


@pytest.mark.parametrize(("plural", "singular"), sorted(SPEC_IRREGULAR.items()))
def test_irregular_entries(plural: str, singular: str) -> None:
    assert singularize(plural) == singular
    assert singularize(plural.upper()) == singular
    # and as count nouns, plural and singular are one dimension
    assert parse_unit(plural) == parse_unit(singular)


@pytest.mark.parametrize(
    ("word", "singular"),
    [
        # (2) -ss, -us, -is are kept
        ("glass", "glass"),
        ("bus", "bus"),
        ("bonus", "bonus"),
        ("axis", "axis"),
        ("dress", "dress"),
        # (3) -ies -> -y in words of 5+ letters
        ("berries", "berry"),
        ("cherries", "cherry"),
        ("flies", "fly"),
        # (4) -sses, -shes, -ches, -xes, -zzes drop "es"
        ("glasses", "glass"),
        ("dishes", "dish"),
        ("peaches", "peach"),
        ("boxes", "box"),
        ("buzzes", "buzz"),
        ("inches", "inch"),
        # (5) any other final s is dropped (also -ies in 4-letter words)
        ("eggs", "egg"),
        ("shoes", "shoe"),
        ("houses", "house"),
        ("pies", "pie"),
        ("ties", "tie"),
        # otherwise kept; always lowercased
        ("egg", "egg"),
        ("sheep", "sheep"),
        ("Eggs", "egg"),
        ("APPLES", "apple"),
        ("s", "s"),
        ("", ""),
    ],
)
def test_singularize_rules(word: str, singular: str) -> None:
    assert singularize(word) == singular


# ---- TE-38: count nouns and name lookup -----------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("eggs", "egg"),
        ("Eggs", "egg"),
        ("EGGS", "eggs"),
        ("buses", "bus"),
        ("loaves", "loaf"),
        ("cookies", "cookie"),
        ("duck eggs", "duck_egg"),
        ("Duck Eggs", "duck_eggs"),
        ("berries", "berry"),
        ("glasses", "glass"),
        ("boxes", "box"),
        ("pies", "pie"),
        ("houses", "house"),
    ],
)
def test_count_noun_spellings_are_one_dimension(a: str, b: str) -> None:
    assert parse_unit(a) == parse_unit(b)
    assert parse_unit(a).compatible(parse_unit(b))
    assert parse_unit(a).dimensionality().startswith("[count:")


@pytest.mark.parametrize(
    ("a", "b"), [("eggs", "items"), ("duck eggs", "eggs"), ("egg", "USD"), ("cats", "cat_s")]
)
def test_different_count_nouns_differ(a: str, b: str) -> None:
    assert not parse_unit(a).compatible(parse_unit(b))
    assert unit_ratio(parse_unit(a), parse_unit(b)) is None


@pytest.mark.parametrize(
    ("name", "unit"),
    [("lbs", "lb"), ("hrs", "hr"), ("mins", "min"), ("kgs", "kg"), ("Hours", "hour"), ("MPH", "mph"),
     ("Dollars", "USD"), ("Kg", "kg"), ("secs", "s"), ("Sq_Ft", "sq_ft")],
)  # fmt: skip
def test_count_noun_path_reaches_curated_units(name: str, unit: str) -> None:
    assert parse_unit(name) == parse_unit(unit)


@pytest.mark.parametrize(("name", "dim"), [("M", "[count:m]"), ("S", "[count:s]"), ("usd", "[count:usd]")])
def test_lookup_is_case_sensitive_and_short_names_stay_count_nouns(name: str, dim: str) -> None:
    assert parse_unit(name).dimensionality() == dim


# ---- TE-40: compatibility -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "ok"),
    [
        ("m", "meter", True),
        ("m", "meters", True),
        ("meter", "meters", True),
        ("N*m", "J", True),
        ("km/h * h", "km", True),
        ("m/s * s", "m", True),
        ("m^2", "m2", True),
        ("m**2", "m2", True),
        ("sq ft", "ft2", True),
        ("miles per hour", "mph", True),
        ("km/h", "kph", True),
        ("W*s", "J", True),
        ("kg*m/s^2", "N", True),
        ("USD", "$", True),
        ("mile", "m", False),
        ("cent", "USD", False),
        ("min", "h", False),
        ("h", "USD", False),
        ("m", "m2", False),
        ("J", "N", False),
        ("percent", "m", False),
    ],
)
def test_compatibility(a: str, b: str, ok: bool) -> None:
    assert parse_unit(a).compatible(parse_unit(b)) is ok
    assert parse_unit(b).compatible(parse_unit(a)) is ok


def test_compatibility_tolerance_is_inclusive_1e9() -> None:
    length = (("length", Fraction(1)),)
    one = UnitVec(Fraction(1), length)
    assert one.compatible(UnitVec(1 + Fraction(1, 10**9), length))
    assert not one.compatible(UnitVec(1 + Fraction(2, 10**9), length))
    assert unit_ratio(parse_unit("mile"), parse_unit("m")) == Fraction("1609.344")


# ---- TE-38: the unit grammar ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("m per s", "m/s"),
        ("USD per kg", "USD/kg"),
        ("m^2", "m**2"),
        ("m^-2", "1/m**2"),
        ("m**-2", "1/m^2"),
        ("m**(-2)", "1/m^2"),
        ("s**-1", "1/s"),
        ("(m/s)**2", "m**2/s**2"),
        ("m/s/s", "m/s**2"),
        ("m/(s*s)", "m/s^2"),
        ("((m))", "m"),
        ("  m / s  ", "m/s"),
        ("m**0", "1"),
        ("m**1", "m"),
        ("duck eggs", "duck_egg"),
        ("duck   eggs", "duck_eggs"),
        ("duck eggs per day", "duck_egg/day"),
        ("USD/hour", "USD/h"),
        ("$/h", "USD/hour"),
        ("1/s", "s^-1"),
        ("%", "percent"),
        ("sq ft", "sq_ft"),
    ],
)
def test_grammar_equivalences(text: str, same_as: str) -> None:
    assert parse_unit(text) == parse_unit(same_as)


def test_grammar_vectors() -> None:
    assert parse_unit("USD/hour") == UnitVec(
        Fraction(1, 3600), (("currency_USD", Fraction(1)), ("time", Fraction(-1)))
    )
    assert parse_unit("1/s").exps == (("time", Fraction(-1)),)
    assert parse_unit("duck eggs").exps == (("count:duck_egg", Fraction(1)),)


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("", 0),
        ("   ", 0),
        ("m/", 2),
        ("**x", 0),
        ("m**x", 3),
        ("m**1.5", 4),
        ("(m", 2),
        ("m)", 1),
        ("((m)", 4),
        ("#", 0),
        ("m # s", 2),
        ("2/s", 0),
        ("m**101", 3),
        ("m^-101", 3),
        ("m**", 3),
        ("m**2**3", 4),
        ("per s", 0),
        ("m per", 5),
        ("m * * s", 4),
        ("café", 3),
        ("m\x00", 1),
        ("m..s", 1),
        ("$ USD", 2),
        ("m**2 s", 5),
        ("m^(2", 4),
        ("m**99999999999999999999", 3),
    ],
)
def test_malformed_units_raise_unit_syntax_error(text: str, offset: int) -> None:
    with pytest.raises(UnitSyntaxError) as info:
        parse_unit(text)
    assert info.value.offset == offset
    assert info.value.reason
    assert isinstance(info.value, ValueError)


def test_long_input_is_rejected_quickly() -> None:
    start = time.perf_counter()
    for text in ["m" * 10_000, "(" * 10_000, "m*" * 5_000, " " * 201, "duck " * 2_000]:
        with pytest.raises(UnitSyntaxError) as info:
            parse_unit(text)
        assert info.value.offset == 200
    assert time.perf_counter() - start < 1.0


def test_parenthesis_depth_is_bounded() -> None:
    assert parse_unit("(" * 10 + "m" + ")" * 10) == parse_unit("m")
    with pytest.raises(UnitSyntaxError) as info:
        parse_unit("(" * 11 + "m" + ")" * 11)
    assert info.value.offset == 10


def test_nested_powers_cannot_build_huge_factors() -> None:
    with pytest.raises(UnitSyntaxError):
        parse_unit("(((km/m)**100)**100)**100")
    with pytest.raises(UnitSyntaxError):
        parse_unit("(m**100)**100")
    with pytest.raises(UnitSyntaxError):
        parse_unit("m**60*m**60")


# A focused alphabet hits the grammar; arbitrary text covers everything else.
UNIT_TEXT = st.one_of(
    st.text(alphabet=st.sampled_from(list("mskgh/*^()-_ 102$%#.p er")), max_size=60),
    st.text(max_size=60),
    st.lists(st.sampled_from(["m", "per", "**", "^", "(", ")", "-", "2", "1", "eggs", "USD", " "])).map(
        "".join
    ),
)


@settings(max_examples=400, deadline=None)
@given(UNIT_TEXT)
def test_parse_unit_returns_a_vector_or_raises_unit_syntax_error(text: str) -> None:
    start = time.perf_counter()
    try:
        u = parse_unit(text)
    except UnitSyntaxError as err:
        assert 0 <= err.offset <= len(text)
        assert err.reason
    else:
        assert isinstance(u, UnitVec)
        assert isinstance(format_unit(u), str)
        assert isinstance(u.dimensionality(), str)
    assert time.perf_counter() - start < 1.0


# ---- UnitVec arithmetic and display ---------------------------------------------------------


def test_unitvec_arithmetic() -> None:
    m, s, km = parse_unit("m"), parse_unit("s"), parse_unit("km")
    assert (m / s) * s == m
    assert (m * m) ** Fraction(1, 2) == m
    assert (parse_unit("mile") ** 2) ** Fraction(1, 2) == parse_unit("mile")
    root = parse_unit("mile") ** Fraction(1, 2)
    assert (root * root).compatible(parse_unit("mile"))
    assert m**0 == DIMENSIONLESS
    assert km / m == UnitVec(Fraction(1000))
    assert (km / m).dimensionless and not km.dimensionless
    assert (
        UnitVec(Fraction(1), (("time", Fraction(-1)), ("length", Fraction(1)), ("mass", Fraction(0))))
        == m / s
    )
    with pytest.raises(ValueError):
        UnitVec(Fraction(0))


def test_dimensionality_text() -> None:
    assert parse_unit("m/s").dimensionality() == "[length]/[time]"
    assert parse_unit("USD").dimensionality() == "[currency_USD]"
    assert parse_unit("eggs").dimensionality() == "[count:egg]"
    assert parse_unit("%").dimensionality() == "dimensionless"
    assert parse_unit("1/s").dimensionality() == "1/[time]"
    assert (parse_unit("m") ** Fraction(1, 2)).dimensionality() == "[length]**(1/2)"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("mile", "mile"),
        ("miles", "mile"),
        ("meters", "m"),
        ("m/s * s", "m"),
        ("km/h * h", "km"),
        ("m/s", "m/s"),
        ("USD/hour", "USD/h"),
        ("dollars per minute", "USD/min"),
        ("cents", "cent"),
        ("1", "1"),
        ("percent", "1"),
        ("km/m", "1000"),
        ("m/km", "0.001"),
        ("min/h", "1/60"),
        ("m^2", "m**2"),
        ("1/s", "1/s"),
        ("cups per day", "cup/day"),
        ("N*m", "J"),
        ("eggs", "egg"),
        ("USD/egg", "USD/egg"),
        ("duck eggs per day", "duck_egg/day"),
        ("M", "count:m"),
    ],
)
def test_format_unit(text: str, shown: str) -> None:
    assert format_unit(parse_unit(text)) == shown


def test_format_unit_falls_back_to_base_symbols_with_a_factor() -> None:
    length = (("length", Fraction(1)),)
    assert format_unit(UnitVec(Fraction("3218.688"), length)) == "3218.688*m"
    assert format_unit(parse_unit("USD/min") * parse_unit("cent")) == "(1/6000)*USD**2/s"
    assert format_unit(parse_unit("mile") ** Fraction(1, 2)).startswith("~40.1166")
    start = time.perf_counter()
    huge = UnitVec(Fraction(1000) ** 20_000, (("length", Fraction(20_000)),))
    assert format_unit(huge) == "~1.000000000E+60000*m**20000"
    assert time.perf_counter() - start < 1.0


# ---- TE-18 and performance: no pint string parsing, no pint at run time ----------------------

FORBIDDEN_CALLS = {"parse_expression", "parse_units", "parse_unit_name", "Quantity", "Unit", "eval", "exec"}


@pytest.mark.parametrize("path", [UNITS_PY, UNITTABLE_PY], ids=lambda p: p.name)
def test_module_never_calls_pint_string_parsing(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert "parse_expression" not in source
    assert "ureg(" not in source
    called = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                called.add(func.attr)
            elif isinstance(func, ast.Name):
                called.add(func.id)
    assert not called & FORBIDDEN_CALLS
    # the registry is only ever asked about containers of known names, or given the curated file
    registry_calls = {
        node.func.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "registry"
    }
    pint_module = path == UNITTABLE_PY  # pint lives in the table's module only
    assert registry_calls == (
        {"get_root_units", "get_dimensionality", "load_definitions"} if pint_module else set()
    )
    imported: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert ("pint" in imported) == pint_module


def _run(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_importing_the_module_does_not_import_pint() -> None:
    _run("import cotaudit.te.units, sys; assert 'pint' not in sys.modules, 'pint imported'")


def test_no_unit_imports_pint() -> None:
    # Count nouns, the identity and every curated name (physical or not) resolve without pint:
    # physical ones from the table generated from pint (tests/te/test_unittable.py, issue 18).
    _run(
        "import sys\n"
        "from cotaudit.te.units import parse_unit, format_unit\n"
        "u = parse_unit('duck eggs per egg') / parse_unit('Eggs**2') * parse_unit('1')\n"
        "format_unit(u); parse_unit('dimensionless'); u.dimensionality()\n"
        "for name in ['m', 'miles', 'km/h', 'kg*m/s^2', 'USD/h', 'gallons', 'J/s']:\n"
        "    format_unit(parse_unit(name))\n"
        "assert 'pint' not in sys.modules, 'pint imported'\n"
    )


def test_module_alone_does_not_import_pint() -> None:
    # Load units.py by path, so other modules of the package cannot mask the result.
    _run(
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('units_alone', {str(UNITS_PY)!r})\n"
        "mod = importlib.util.module_from_spec(spec); sys.modules['units_alone'] = mod\n"
        "spec.loader.exec_module(mod)\n"
        "mod.parse_unit('eggs'); mod.parse_unit('mile/h')\n"
        "assert 'pint' not in sys.modules\n"
    )
    assert importlib.util.find_spec("pint") is not None  # still a dependency: the generator's


def test_first_lookups_are_thread_safe() -> None:
    _run(
        "import sys\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from cotaudit.te import units\n"
        "names = ['mile', 'm', 'USD', 'kph', 'J', 'percent', 'L', 'cent'] * 8\n"
        "with ThreadPoolExecutor(16) as pool:\n"
        "    got = list(pool.map(units.parse_unit, names))\n"
        "assert got == [units.parse_unit(n) for n in names]\n"
        "assert 'pint' not in sys.modules\n"
    )


def test_parse_unit_is_cached() -> None:
    assert parse_unit("kg*m/s^2") is parse_unit("kg*m/s^2")
    assert format_unit(parse_unit("kg*m/s^2")) == "N"


def test_currency_and_labels_never_import_pint() -> None:
    # A trace in dollars or percent is the common case: it must not pay for pint (issue 18).
    _run(
        "import sys\n"
        "from cotaudit.te.units import parse_unit, format_unit\n"
        "for name in ['USD', 'dollars', '$', 'cent', 'cents', 'EUR', 'percent', '%', 'degrees', 'turn', 'degC']:\n"
        "    format_unit(parse_unit(name))\n"
        "format_unit(parse_unit('USD/cent')); format_unit(parse_unit('USD per egg'))\n"
        "assert 'pint' not in sys.modules, 'pint imported'\n"
    )
