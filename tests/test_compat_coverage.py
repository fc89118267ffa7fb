"""The API coverage page: census names looked up in minitorch (compat/coverage.py)."""

from __future__ import annotations

from pathlib import Path

from compat import coverage


def test_every_census_api_name_gets_a_status() -> None:
    tables = coverage.read_census()
    classified = coverage.classify(tables)
    assert set(classified) == set(coverage.API_TABLES)
    top_level = {row.name: row for row in classified["torch (top level)"]}
    assert len(top_level) == len(tables["torch (top level)"]) > 100
    assert top_level["torch.tensor"].status == "supported"
    assert top_level["torch.no_grad"].status == "supported"
    methods = {row.name: row.status for row in classified["Tensor methods and attributes"]}
    assert methods["Tensor.backward"] == "supported"
    assert all(row.status in coverage.STATUSES for rows in classified.values() for row in rows)


def test_a_name_minitorch_lacks_is_missing_and_a_keyword_it_lacks_is_partial() -> None:
    tables = {
        "torch (top level)": [("torch.no_such_function", 5, 9), ("torch.zeros", 3, 3)],
        "keywords": [("torch.zeros(no_such_keyword=)", 1, 1)],
    }
    rows = {row.name: row for row in coverage.classify(tables)["torch (top level)"]}
    assert rows["torch.no_such_function"].status == "missing"
    assert rows["torch.zeros"].status == "partial"
    assert rows["torch.zeros"].missing_keywords == ["no_such_keyword"]


def test_the_page_renders(tmp_path: Path) -> None:
    out = tmp_path / "coverage.md"
    assert coverage.main(["--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# API coverage") and "| `torch.tensor` |" in text
