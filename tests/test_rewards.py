"""cotaudit.rewards, called exactly the way TRL's GRPOTrainer and verl's reward managers call it.

No training and no model: the calls below reproduce, argument for argument, what the libraries
do around a custom reward function (TRL ``GRPOTrainer._calculate_rewards``; verl
``get_custom_reward_fn`` + ``NaiveRewardManager.__call__``), then check what comes back.
"""

from __future__ import annotations

import importlib.util
import math
from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from cotaudit import rewards
from cotaudit.report import InputRef, Report
from cotaudit.rewards import Shaping, compute_score, cotaudit_reward, make_trl_reward, reward_for

ROOT = Path(__file__).resolve().parents[1]
SLIP = (ROOT / "examples" / "te" / "C_arithmetic_slip.te").read_text(encoding="utf-8")
JANET = (ROOT / "examples" / "te" / "A_janet.te").read_text(encoding="utf-8")
MEMORIES = (ROOT / "examples" / "type6" / "memories.t6").read_text(encoding="utf-8")
GRADED = (ROOT / "examples" / "type6" / "G05_bb_conflict.t6").read_text(encoding="utf-8")  # pass, 4.5


def _report(verdict: str, engine: str = "te", score: float | None = None) -> Report:
    return Report(engine, f"{engine}/1", InputRef("x", None, "0" * 64), verdict, score=score)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- shaping


def test_shaping_table() -> None:
    # "could not check" (abstain) is None by default, never the 0.0 of a wrong trace (issue 17)
    assert [reward_for(_report(v)) for v in ("pass", "fail", "abstain", "invalid")] == [1.0, 0.0, None, 0.0]
    assert reward_for(_report("pass", "type6", 3.5)) == pytest.approx(0.7)
    assert reward_for(_report("pass", "type6", 7.0)) == 1.0  # clamped
    assert reward_for(_report("fail", "type6", 3.5)) == 0.0
    assert reward_for(_report("pass", "te", 3.5)) == 1.0  # te scores are not graded
    assert reward_for(_report("pass", "type6", 3.5), Shaping(graded=False)) == 1.0
    custom = Shaping(pass_reward=2.0, fail_reward=-1.0, abstain_reward=None, invalid_reward=-2.0)
    assert [reward_for(_report(v), custom) for v in ("pass", "fail", "abstain", "invalid")] == [
        2.0,
        -1.0,
        None,
        -2.0,
    ]
    assert Shaping.from_mapping({"abstain_reward": 0.5}).abstain_reward == 0.5
    with pytest.raises(ValueError, match="unknown shaping field"):
        Shaping.from_mapping({"pass": 1})


def test_shaping_from_json_values_is_checked() -> None:
    ok = Shaping.from_mapping(
        {"pass_reward": 2, "abstain_reward": None, "graded": False, "score_scales": {"x": 10}}
    )
    assert reward_for(_report("pass"), ok) == 2.0 and isinstance(reward_for(_report("pass"), ok), float)
    assert reward_for(_report("abstain"), ok) is None
    bad: list[dict[str, Any]] = [
        {"pass_reward": "1"},
        {"fail_reward": True},
        {"invalid_reward": None},
        {"abstain_reward": float("nan")},
        {"graded": 1},
        {"score_scales": {"type6": 0}},
        {"score_scales": [5]},
    ]
    for values in bad:
        with pytest.raises(ValueError, match="shaping field"):
            Shaping.from_mapping(values)


def test_completion_text_forms() -> None:
    assert rewards.completion_text("plain") == "plain"
    assert rewards.completion_text([{"role": "assistant", "content": "trace"}]) == "trace"
    parts = [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}],
        }
    ]
    assert rewards.completion_text(parts) == "ab"
    assert rewards.completion_text(None) == ""


# --------------------------------------------------------------------------- TRL


def _trl_calculate_rewards(
    reward_funcs: list[Any],
    inputs: list[dict[str, Any]],
    prompts: list[Any],
    completions: list[Any],
    completion_ids_list: list[list[int]],
) -> list[list[float]]:
    """TRL GRPOTrainer._calculate_rewards for custom (non-model) reward functions, minus torch."""
    rewards_per_func = [[0.0] * len(reward_funcs) for _ in prompts]
    keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
    reward_kwargs = {key: [example[key] for example in inputs] for key in keys}
    reward_kwargs["trainer_state"] = object()  # transformers.TrainerState in TRL
    for i, reward_func in enumerate(reward_funcs):
        _ = reward_func.__name__  # TRL names each function in its logs and profiling
        output_reward_func = reward_func(
            prompts=prompts, completions=completions, completion_ids=completion_ids_list, **reward_kwargs
        )
        output_reward_func = [reward if reward is not None else math.nan for reward in output_reward_func]
        for row, value in enumerate(output_reward_func):
            rewards_per_func[row][i] = float(value)  # torch.tensor(..., dtype=torch.float32) in TRL
    return rewards_per_func


def test_trl_standard_format() -> None:
    inputs = [
        {"prompt": "Janet's ducks?", "ground_truth": "18", "engine": "te"},
        {"prompt": "Janet's ducks?", "ground_truth": "18", "engine": "te"},
        {"prompt": "Is 10 prime?", "ground_truth": "no", "engine": "type6"},
        {"prompt": "Which one?", "ground_truth": "b", "engine": "type6"},
    ]
    prompts = [x["prompt"] for x in inputs]
    completions = [JANET, SLIP, MEMORIES, GRADED]
    ids = [[1, 2], [3], [4, 5, 6], [7]]
    table = _trl_calculate_rewards([cotaudit_reward], inputs, prompts, completions, ids)
    # memories.t6 is a hard fail; a passing type6 trace is graded by coherence / 5
    assert [row[0] for row in table] == [1.0, 0.0, 0.0, pytest.approx(4.5 / 5)]
    assert cotaudit_reward.__name__ == "cotaudit_reward"


def test_trl_conversational_format_and_engine_default() -> None:
    reward = make_trl_reward(engine="te", shaping=Shaping(abstain_reward=None), name="te_audit")
    inputs = [{"prompt": [{"role": "user", "content": "q"}], "answer": "18"} for _ in range(3)]
    completions = [
        [{"role": "assistant", "content": JANET}],
        [{"role": "assistant", "content": SLIP}],
        [{"role": "assistant", "content": "I think the answer is 18."}],
    ]
    table = _trl_calculate_rewards([reward], inputs, [x["prompt"] for x in inputs], completions, [[1]] * 3)
    assert [row[0] for row in table] == [1.0, 0.0, 0.0]
    assert reward.__name__ == "te_audit"


# --------------------------------------------------------------------------- verl


def _call_with_kwargs(raw_fn: Any, extra_kwargs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
    """verl.trainer.ppo.reward._call_with_kwargs: config reward_kwargs take precedence."""
    merged_kwargs = {**kwargs, **extra_kwargs}
    return raw_fn(*args, **merged_kwargs)


def _verl_custom_reward_fn(tmp_path: Path, reward_kwargs: dict[str, Any]) -> Any:
    """verl's get_custom_reward_fn: load ``custom_reward_function.path``, take ``.name``."""
    file_path = tmp_path / "cotaudit_reward_fn.py"
    file_path.write_text("from cotaudit.rewards import compute_score\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("custom_module", file_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function_name = "compute_score"  # custom_reward_function.name
    raw_fn = getattr(module, function_name)
    return partial(_call_with_kwargs, raw_fn, reward_kwargs)


def _verl_naive_manager(
    compute: Any, batch: list[dict[str, Any]]
) -> tuple[list[float], dict[str, list[Any]]]:
    """The per-item loop of verl's NaiveRewardManager.__call__ after decoding, minus torch."""
    scores: list[float] = []
    reward_extra_info: dict[str, list[Any]] = defaultdict(list)
    for item in batch:
        extra_info = item.get("extra_info", {})
        extra_info["num_turns"] = item.get("__num_turns__", None)
        score = compute(
            data_source=item["data_source"],
            solution_str=item["response_str"],
            ground_truth=item["reward_model"]["ground_truth"],
            extra_info=extra_info,
        )
        if isinstance(score, dict):
            reward = score["score"]
            for key, value in score.items():
                reward_extra_info[key].append(value)
        else:
            reward = score
        scores.append(float(reward))
    return scores, reward_extra_info


def test_verl_compute_score(tmp_path: Path) -> None:
    batch = [
        {"data_source": "gsm8k", "response_str": JANET, "reward_model": {"ground_truth": "18"}},
        {"data_source": "gsm8k", "response_str": SLIP, "reward_model": {"ground_truth": "18"}},
        {"data_source": "type6", "response_str": MEMORIES, "reward_model": {"ground_truth": ""}},
        {
            "data_source": "x",
            "response_str": MEMORIES,
            "reward_model": {"ground_truth": ""},
            "extra_info": {"engine": "type6"},
        },
    ]
    scores, extra = _verl_naive_manager(_verl_custom_reward_fn(tmp_path, {}), batch)
    assert scores == [1.0, 0.0, 0.0, 0.0] and extra == {}
    as_te, _ = _verl_naive_manager(_verl_custom_reward_fn(tmp_path, {"engine": "te"}), batch[:1])
    assert as_te == [1.0]
    shaped, _ = _verl_naive_manager(
        _verl_custom_reward_fn(tmp_path, {"shaping": {"fail_reward": -1.0}}), batch[1:2]
    )
    assert shaped == [-1.0]


def test_verl_abstain_none_becomes_zero_and_bad_engines_are_invalid() -> None:
    assert compute_score("fake", "UNSURE", None, None, shaping={"abstain_reward": None}) == 0.0
    assert compute_score("fake", "fine", None, {"engine": "fake"}) == 1.0
    assert compute_score(None, "x", None, {"engine": "nope"}) == 0.0
