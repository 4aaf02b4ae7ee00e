"""Section 6 in Chromium: sharing key/value heads (on random projections) and the KV-cache calculator.

One page load is shared by the module (Pyodide takes seconds to start). Expected numbers are
mha's, computed here in CPython, or byte counts worked by hand in the comments.
"""

import re

import pytest
from playwright.sync_api import expect

import mha
from conftest import WORKED, expect_tables, open_page

# --- test data ---------------------------------------------------------------

LLAMA_3_8B_FIELDS = {"kv-layers": "32", "kv-query-heads": "32", "kv-kv-heads": "8", "kv-head-width": "128",
                     "kv-seq-len": "8192", "kv-batch": "1", "kv-bytes": "2"}
BAD_FIELDS = [  # (field, typed text, words of the sentence under the calculator)
    ("kv-layers", "0", "layers must be between 1 and"),
    ("kv-query-heads", "abc", "query heads"),
    ("kv-kv-heads", "3", "32 query heads are not divisible by 3 key/value heads"),
    ("kv-head-width", "", "head width"),
    ("kv-seq-len", "1e309", "sequence length"),
    ("kv-batch", "0", "batch must be between 1 and"),
    ("kv-batch", "two", "batch"),
    ("kv-bytes", "NaN", "bytes per number"),
    ("kv-bytes", "-2", "bytes per number must be at least 0.125 (one bit)"),
    ("kv-bytes", "1e-9", "bytes per number must be at least 0.125 (one bit), got 1e-09"),
    ("kv-batch", "100001", "batch must be between 1 and 100,000, got 100,001"),
]


# --- the shared page ------------------------------------------------------------

@pytest.fixture
def reader(reader):
    """conftest's shared page after "reset the figures", and the KV calculator back at Llama-3-8B's fields
    (the reset keeps the calculator's numbers, so earlier tests' edits would carry over), section 6's question
    answered, which shows the table of published models."""
    reader.locator("#kv-model").select_option("Llama-3-8B")
    for field, value in LLAMA_3_8B_FIELDS.items():
        reader.locator(f"#{field}").fill(value)
    expect(reader.locator("#kv-error")).to_be_empty()
    answered = reader.locator('fieldset[data-question="sharing"]')  # the models' table waits for its question
    answered.get_by_role("radio").first.check()
    answered.get_by_role("button", name="Check my answer").click()
    expect(reader.locator("#kv-models")).to_be_visible()
    return reader


def vector(numbers):
    return "[" + ", ".join(f"{x:.4f}" for x in numbers) + "]"


def group_column(page, head, name):
    table = page.get_by_role("table", name=f"query head {head} and key/value head 0", exact=True)
    return table.locator(f"td.{name}")


# --- sharing ---------------------------------------------------------------------

def test_sharing_switches_on_random_projections_and_a_group_shares_keys_and_values(reader):
    note = reader.locator(".kv-projections-note")
    expect(note).to_contain_text("Fewer key/value heads switch on random projections")
    expect(reader.locator("#projections")).to_have_value("identity")

    reader.locator("#kv-heads").select_option("1")
    expect(reader.locator("#projections")).to_have_value("random")  # the picker in section 3 says so too
    expect(note).to_contain_text("Sharing is on, so every head projects the tokens with random matrices (seed 0)")
    expect(reader).to_have_url(re.compile(r"kv=1&c=0&p=rand"))
    result = mha.multi_head_attention(mha.LESSON_TOKENS, 2, kv_heads=1,
                                      **mha.random_projections(4, 2, kv_heads=1, seed=0))
    expect_tables(reader, {f"head {h} weights": [[f"{w:.2f}" for w in row] for row in result.weights[h]]
                           for h in (0, 1)})
    given = ", ".join(f"{result.weights[h][1][0]:.2f} in head {h}" for h in (0, 1))  # token 1's query on token 0
    expect(reader.locator(".kv-row-note")).to_have_text(
        "Query heads 0 and 1 read one cached row, token 0's key and value in key/value head 0. Their queries differ, "
        f"so each weighs it on its own: token 1 gives that row {given}.")
    details = reader.locator(".kv-group-details")
    if not details.evaluate("d => d.open"):  # the tables wait in a <details> (the shared page may have it open)
        details.locator("summary").click()
    for h in (0, 1):  # the same keys and values in both tables, each head's own queries
        expect(group_column(reader, h, "kv-key")).to_have_text([vector(k) for k in result.key_heads[0]])
        expect(group_column(reader, h, "kv-value")).to_have_text([vector(v) for v in result.value_heads[0]])
        expect(group_column(reader, h, "kv-query")).to_have_text([vector(q) for q in result.query_heads[h]])
    assert result.query_heads[0] != result.query_heads[1]
    expect(reader.locator(".kv-group-figure figcaption")).to_contain_text("serves query heads 0, 1")

    reader.locator("#projections").select_option("identity")  # identity slices end the sharing
    expect(reader.locator("#kv-heads")).to_have_value("2")
    expect(reader.locator(".kv-sharing figcaption")).to_contain_text("plain multi-head")
    expect_tables(reader, WORKED)
    expect(reader.locator("#seed-error")).to_be_empty()


def test_a_link_with_shared_heads_on_identity_slices_is_refused_with_its_reason(browser, site_url):
    page, guard = open_page(browser, site_url, "#h=2&kv=1&p=id")
    expect(page.locator("#link-notice")).to_contain_text("This link opened without kv=1")
    expect(page.locator("#kv-sharing-error")).to_contain_text(  # beside the key/value heads picker
        "shared key/value heads need random projections: with identity slices, query head 1 would score "
        "its slots 2-3 against keys made of query head 0's slots 0-1")
    expect(page.locator("#kv-heads")).to_have_value("2")
    page.context.close()
    assert not guard.problems(), guard.problems()


# --- the calculator -------------------------------------------------------------------

def test_the_calculator_bills_per_token_batch_weights_and_flags_the_context(reader):
    bill, warning = reader.locator("#kv-bill"), reader.locator(".kv-warning")
    expect(bill).to_contain_text("= 128.0 KiB")   # 2 x 32 layers x 8 kv heads x 128 x 2 bytes = 131072 B
    expect(bill).to_contain_text("1.00 GiB")      # x 8192 tokens
    expect(bill).to_contain_text("14.96 GiB")     # 8,030,261,248 parameters x 2 bytes
    expect(bill).to_contain_text("meta-llama/Meta-Llama-3-8B")
    expect(warning).to_be_empty()
    expect(warning).to_be_hidden()

    reader.locator("#kv-seq-len").fill("131072")
    expect(bill).to_contain_text("16.00 GiB")     # 131072 x 128 KiB = 2**34 B
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("131,072 tokens is more than the 8,192 that Llama-3-8B was built for")
    expect(reader.locator("#kv-error")).to_be_empty()  # a warning, not an error
    row = reader.locator("#kv-models tbody tr").filter(has_text="Meta-Llama-3-8B")
    expect(row).to_contain_text("beyond context")

    reader.locator("#kv-batch").fill("4")
    expect(bill).to_contain_text("× 4 conversations = 64.00 GiB")
    expect(bill).to_contain_text("78.96 GiB")     # the weights' 14.96 GiB and 64 GiB of cache

    reader.locator("#kv-model").select_option("Llama-3.1-8B")  # the same shape, built for 131072 tokens
    expect(warning).to_be_empty()
    expect(bill).to_contain_text("64.00 GiB")
    expect(reader.locator("#kv-seq-len")).to_have_value("131072")
    expect(reader.locator("#kv-batch")).to_have_value("4")

    reader.locator("#kv-model").select_option("Mistral-7B-v0.1")
    reader.locator("#kv-batch").fill("1")
    reader.locator("#kv-seq-len").fill("32768")
    expect(bill).to_contain_text("the last 4,096 of 32,768: a sliding window")
    expect(bill).to_contain_text("512.0 MiB")     # 2 x 32 x 8 x 4096 x 128 x 2 = 2**29 B
    expect(reader.locator("#kv-model")).to_have_value("Mistral-7B-v0.1")  # editing kept the model

    reader.locator("#kv-model").select_option("Llama-3-70B")
    expect(reader.locator("#kv-layers")).to_have_value("80")
    expect(bill).to_contain_text("meta-llama/Meta-Llama-3-70B")
    expect(warning).to_contain_text("8,192 that Llama-3-70B")


def test_the_question_models_bills_wait_for_check_and_others_do_not(reader):
    """Review item 15: picking Llama-2-7B showed 512.0 KiB a token before section 6's Check."""
    question, bill = reader.locator('fieldset[data-question="sharing"]'), reader.locator("#kv-bill")
    question.get_by_role("radio").nth(1).check()  # a new pick: what Check showed waits again
    for name in ("Llama-2-7B", "Llama-3-70B"):
        reader.locator("#kv-model").select_option(name)
        expect(bill.locator(".kv-held")).to_have_text(f"{name}'s bill waits for your answer to the question above.")
        expect(bill.locator(".kv-held")).to_be_visible()
        expect(bill.locator("table")).to_be_hidden()
    reader.locator("#kv-model").select_option("Mistral-7B-v0.1")
    expect(bill.locator(".kv-held")).to_have_count(0)
    expect(bill.locator("table")).to_be_visible()
    reader.locator("#kv-model").select_option("Llama-2-7B")
    question.get_by_role("button", name="Check my answer").click()
    expect(bill.locator(".kv-held")).to_be_hidden()
    expect(bill.locator("table")).to_be_visible()
    expect(bill).to_contain_text("= 512.0 KiB")  # 2 x 32 layers x 32 kv heads x 128 x 2 bytes = 2**19 B


def test_the_table_names_every_config_and_follows_the_fields(reader):
    table = reader.get_by_role("table", name="KV cache by model", exact=True)
    expect(table.locator("tbody th")).to_have_text([f"{s.name} {s.source}" for s in mha.MODEL_SHAPES])
    expect(table.locator("caption")).to_contain_text("8,192 tokens × 1 conversation")
    reader.locator("#kv-seq-len").fill("1000")
    expect(table.locator("caption")).to_contain_text("1,000 tokens × 1 conversation")
    expect(table.locator("td.beyond")).to_have_count(0)


@pytest.mark.parametrize("fid, text, words", BAD_FIELDS)
def test_bad_input_in_every_field_is_named_and_the_bill_stays(reader, fid, text, words):
    bill, field = reader.locator("#kv-bill"), reader.locator(f"#{fid}")
    field.fill(text)
    expect(reader.locator("#kv-error")).to_contain_text(words)
    expect(field).to_have_attribute("aria-invalid", "true")  # marked, with a border of the alert colour
    assert field.evaluate("e => getComputedStyle(e).boxShadow") != "none"
    expect(bill).to_contain_text("1.00 GiB")
    field.fill(LLAMA_3_8B_FIELDS[fid])
    expect(reader.locator("#kv-error")).to_be_empty()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(reader.locator("#kv-model")).to_have_value("Llama-3-8B")


def test_the_calculator_reads_numbers_as_it_prints_them_and_bills_in_tib(reader):
    """Issue 30: '8,192' and '100,000' are read as the page prints them; 100,000 conversations of Llama-3-8B's
    1 GiB cache are 100,000 / 1,024 = 97.66 TiB (not 100000.00 GiB)."""
    reader.locator("#kv-seq-len").fill("8,192")
    reader.locator("#kv-batch").fill("100,000")
    expect(reader.locator("#kv-error")).to_be_empty()
    expect(reader.locator("#kv-bill")).to_contain_text("× 100,000 conversations = 97.66 TiB")


def test_your_own_shape_drops_the_models_name_from_the_bill(reader):
    reader.locator("#kv-model").select_option("custom")
    caption = reader.locator("#kv-bill caption")
    expect(caption).to_contain_text("your own shape")
    expect(caption).not_to_contain_text("Llama")
    reader.locator("#kv-seq-len").fill("4096")  # a length typed after it keeps the reader's choice
    expect(caption).to_contain_text("your own shape: 4,096 tokens")
    expect(reader.locator("#kv-model")).to_have_value("custom")
