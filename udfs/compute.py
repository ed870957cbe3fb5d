"""Compute: training FLOPs per token, throughput at a given MFU, cost per token, cost and time of a run.

MFU (model FLOPs utilisation) = achieved model FLOP/s / (GPUs x dense peak FLOP/s at the precision
used). Peaks are DENSE TFLOPS per GPU (docs/facts.md section 2). All functions are vectorised.
"""

from __future__ import annotations

import numpy as np

from . import _check as chk
from . import presets
from .errors import InputRangeError, InputTypeError, UnknownNameError

CONVENTIONS = ("palm", "6n", "megatron")
DEFAULT_CONVENTION = "palm"
SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86400.0


@chk.checking
def flops_per_token_palm(params, layers, d_model, seq_len):
    """PaLM appendix B training FLOPs per token: ``6*N + 12*L*d_model*seq_len``.

    Parameters
    ----------
    params : float or array_like
        Parameter count N (> 0).
    layers, d_model, seq_len : float or array_like
        Layers L, hidden size, sequence length in tokens (> 0).

    Returns
    -------
    float or ndarray
        FLOPs per trained token (forward + backward; attention without causal halving).

    References
    ----------
    Chowdhery et al. 2022, "PaLM: Scaling Language Modeling with Pathways", appendix B.

    Examples
    --------
    GPT-3 175B at sequence length 2048:

    >>> f"{flops_per_token_palm(175e9, 96, 12288, 2048):.5e}"
    '1.07899e+12'
    """
    return chk.out(6.0 * params + 12.0 * layers * d_model * seq_len)


@chk.checking
def flops_per_token_megatron(layers, d_model, heads, kv_heads, ffn, vocab, seq_len, mlp_matrices=3):
    """Architecture-aware training FLOPs per token (NeMo/Megatron count; GQA, gated MLP, logits).

    ``L*h^2*(12 + 12*G/A + 6*m*F/h + 12*s/h) + 6*V*h`` with G KV heads, A attention heads, F FFN size,
    m = 2 for a plain MLP (GPT: gives ``72*L*h^2 + 12*L*s*h + 6*V*h``) or 3 for SwiGLU (Llama: the
    ``18*F/h`` term), V vocabulary, s sequence length.

    Parameters
    ----------
    layers, d_model, heads, kv_heads, ffn, vocab, seq_len : float or array_like
        The architecture (> 0).
    mlp_matrices : float or array_like, optional
        2 (GELU MLP) or 3 (SwiGLU). Default 3.

    Returns
    -------
    float or ndarray
        FLOPs per trained token.

    References
    ----------
    Narayanan et al. 2021 (Megatron-LM) appendix; NVIDIA NeMo MFU accounting; docs/facts.md section 2.

    Examples
    --------
    >>> f"{flops_per_token_megatron(96, 12288, 96, 96, 49152, 51200, 2048, 2):.4e}"
    '1.0764e+12'
    """
    h = d_model
    per_layer = 12.0 + 12.0 * kv_heads / heads + 6.0 * mlp_matrices * ffn / h + 12.0 * seq_len / h
    return chk.out(layers * h * h * per_layer + 6.0 * vocab * h)


#: the architecture fields :func:`flops_per_token_arch` reads from a model preset: the required
#: ones but the sequence length (an input of its own), then the windowed attention (derived: none)
ARCH_FIELDS = (
    *(f for f in presets.REQUIRED_FIELDS["model"] if f != "seq_len"),
    "window_layers",
    "window",
)


def flops_per_token_arch(
    convention,
    seq_len,
    params,
    active_params,
    layers,
    d_model,
    heads,
    kv_heads,
    head_dim,
    ffn,
    vocab,
    mlp_matrices=3,
    window_layers=0,
    window=0,
):
    """Training FLOPs per token of an architecture, dense or mixture-of-experts, in one convention.

    With A = active parameters (= N for a dense model), L layers, attention width W = heads x
    head_dim (= d_model for the dense presets), L_w of the L layers attending to a window of w tokens,
    and the attention term ``T = 12 * W * ((L - L_w) * s + L_w * min(s, w))``:

    - ``"6n"``: ``6 * A`` (Kaplan et al. 2020's 6N, from the parameters a token actually uses);
    - ``"palm"``: ``6 * A + T`` (Chowdhery et al. 2022, appendix B: ``6N + 12 L H Q T``, with N the
      active parameters for a mixture of experts);
    - ``"megatron"``: dense models (A = N) keep the architecture count of
      :func:`flops_per_token_megatron`; mixture-of-experts models count
      ``6 * (A - V * d_model) + T``: every active parameter except the input embedding (a lookup,
      no matmul) is a multiply-add in the forward pass, twice that backward, plus the attention core.

    Parameters
    ----------
    convention : {"palm", "6n", "megatron"}
        The FLOPs convention.
    seq_len : float or array_like
        Sequence length s in tokens (> 0).
    params, active_params : float or array_like
        Total and active parameters (> 0, active <= total; equal for a dense model).
    layers, d_model, heads, kv_heads, head_dim, ffn, vocab, mlp_matrices : float or array_like
        The architecture, as for :func:`flops_per_token_megatron`; ``ffn`` is one expert's FFN size
        in a mixture of experts.
    window_layers, window : float or array_like, optional
        Layers with windowed attention (0 to ``layers``) and their window in tokens; default 0.

    Returns the FLOPs per trained token.

    References
    ----------
    Chowdhery et al. 2022 (PaLM) appendix B; Narayanan et al. 2021 (Megatron-LM); DeepSeek-V3
    report (arXiv:2412.19437) and the other architectures in udfs/data/models.toml. NVIDIA's
    Megatron-Bridge tables imply 260.6 GFLOP per DeepSeek-V3 token at s = 4096 (338 model TFLOP/s at
    1,297 tokens/s per H100, 25.09 container): between 6N (222) and PaLM (283.4) here.

    Examples
    --------
    DeepSeek-V3 (37B active, 61 layers, 128 MLA heads of effective dimension 160) at s = 4096:

    >>> f"{flops_per_token_arch('palm', 4096, 671e9, 37e9, 61, 7168, 128, 128, 160, 2048, 129280):.4e}"
    '2.8340e+11'
    >>> f"{flops_per_token_arch('6n', 4096, 671e9, 37e9, 61, 7168, 128, 128, 160, 2048, 129280):.4e}"
    '2.2200e+11'
    """
    numbers = {k: v for k, v in locals().items() if k != "convention"}  # the arguments, in order
    conv = _convention(convention)
    chk.broadcast(**numbers)
    s = chk.positive("seq_len", seq_len)
    n = chk.positive("params", params)
    a = chk.positive("active_params", active_params)
    over = np.broadcast_to(np.asarray(a) > np.asarray(n), np.broadcast(a, n).shape)
    if over.any():
        i = np.flatnonzero(over)[0]
        raise InputRangeError(
            "active_params",
            np.broadcast_to(a, over.shape).flat[i],
            f"(0, params = {np.broadcast_to(n, over.shape).flat[i]:g}]",
        )
    if conv == "6n":
        return chk.out(6.0 * a + 0.0 * s)
    layer = chk.positive("layers", layers)
    width = chk.positive("heads", heads) * chk.positive("head_dim", head_dim)
    lw = chk.number("window_layers", window_layers, 0.0, float(np.max(layer)))
    w = chk.non_negative("window", window)
    windowed = 12.0 * lw * width * np.minimum(s, w)
    if conv == "palm":  # with no windowed layers: exactly flops_per_token_palm(a, layer, width, s)
        return chk.out(flops_per_token_palm(a, layer - lw, width, s) + windowed)
    d = chk.positive("d_model", d_model)
    v = chk.positive("vocab", vocab)
    moe = 6.0 * (a - v * d) + 12.0 * width * (layer - lw) * s + windowed
    dense = flops_per_token_megatron(layer, d, heads, kv_heads, ffn, v, s, mlp_matrices)
    return chk.out(np.where(np.asarray(a) < np.asarray(n), moe, dense))


def _convention(convention):
    conv = presets.normalize(chk.text("convention", "palm" if convention is None else convention))
    if conv not in CONVENTIONS:
        raise UnknownNameError("convention", convention, CONVENTIONS)
    return conv


def tco_flops_per_token(model, seq_len=None, convention=DEFAULT_CONVENTION):
    """Training FLOPs per token of a model preset (or a bare parameter count with "6n").

    Every convention counts the ACTIVE parameters (``active_params``: all of them for a dense model,
    the routed experts chosen plus the shared layers for a mixture of experts) and the attention
    width heads x head_dim; see :func:`flops_per_token_arch` for the equations.

    Parameters
    ----------
    model : str or float
        A model preset key (``"gpt3_175b"``, ``"llama3_405b"``, ``"deepseek_v3"``, ...), or a
        parameter count (only with ``convention="6n"``).
    seq_len : float, optional
        Sequence length in tokens; default the preset's.
    convention : {"palm", "6n", "megatron"}, optional
        "palm" (default: reproduces the published figures), plain "6n", or the architecture-aware
        "megatron" count.

    Returns
    -------
    float or ndarray
        FLOPs per trained token.

    Examples
    --------
    >>> f"{tco_flops_per_token('gpt3_175b'):.5e}"
    '1.07899e+12'
    >>> f"{tco_flops_per_token(175e9, convention='6n'):.3e}"
    '1.050e+12'

    DeepSeek-V3 from its 37B active parameters (not its 671B):

    >>> f"{tco_flops_per_token('deepseek_v3', convention='6n'):.3e}"
    '2.220e+11'
    """
    conv = _convention(convention)
    if not isinstance(model, str):
        if conv != "6n":
            raise InputTypeError(
                "model",
                model,
                f"a model preset name for convention {conv!r} (a bare parameter count needs convention '6n')",
            )
        return chk.out(6.0 * chk.positive("model", model))
    m = presets.model(model)
    s = m.value("seq_len") if seq_len is None else seq_len
    if conv == "6n":  # 6N ignores the sequence length; it is still checked and broadcast
        s = chk.positive("seq_len", s)
        return chk.out(np.full(np.shape(s), 6.0 * m.value("active_params")))
    return flops_per_token_arch(conv, s, **{f: m.value(f) for f in ARCH_FIELDS})


@chk.checking
def tco_tokens_per_gpu_second(flops_per_token, peak_tflops, mfu):
    """Training throughput per GPU: ``mfu * peak_tflops * 1e12 / flops_per_token``.

    Parameters
    ----------
    flops_per_token : float or array_like
        Training FLOPs per token (> 0).
    peak_tflops : float or array_like
        Dense peak TFLOPS per GPU at the precision used (> 0).
    mfu : float or array_like
        Model FLOPs utilisation, in (0, 1].

    Returns
    -------
    float or ndarray
        Tokens per second per GPU.

    References
    ----------
    NVIDIA dgxc-benchmarking README_175b: 93,190 tok/s on 128 H100 = 728 per GPU at 39.52% FP8 MFU.

    Examples
    --------
    >>> round(tco_tokens_per_gpu_second(1.07899e12, 1978.9, 0.3952), 1)
    724.8
    """
    return chk.out(mfu * peak_tflops * 1e12 / flops_per_token)


@chk.checking
def tco_cost_per_mtok(gpu_hour_usd, flops_per_token, peak_tflops, mfu, goodput=1.0):
    """Cost of one million trained tokens: ``gpu_hour_usd / (3600 * tokens/s per GPU) * 1e6``.

    Parameters
    ----------
    gpu_hour_usd : float or array_like
        TCO (or price) per GPU-hour, USD (> 0).
    flops_per_token, peak_tflops, mfu : float or array_like
        As in :func:`tco_tokens_per_gpu_second`.
    goodput : float or array_like, optional
        Fraction of paid GPU time kept as training progress, in (0, 1] (default 1).

    Returns
    -------
    float or ndarray
        USD per million tokens.

    References
    ----------
    SemiAnalysis 2025-08-20: GPT-3 175B FP8 at 39.5% MFU and $1.42/h costs 54.2 cents per million tokens.

    Examples
    --------
    >>> round(tco_cost_per_mtok(1.42, 1.07899e12, 1978.9, 0.395), 4)
    0.5445
    """
    tps = tco_tokens_per_gpu_second(flops_per_token, peak_tflops, mfu)
    return _usd_per_mtok(gpu_hour_usd, tps, goodput)


@chk.checking
def tco_cost_per_mtok_at_rate(gpu_hour_usd, tokens_per_gpu_second, utilisation=1.0):
    """Cost of serving one million tokens at a measured throughput (inference).

    ``(gpu_hour_usd / utilisation) / (3600 * tokens_per_gpu_second) * 1e6``: idle hours are paid
    for, so the hourly cost is divided by the fraction of hours that serve at that throughput.

    Parameters
    ----------
    gpu_hour_usd : float or array_like
        TCO (or rental price) per GPU-hour, USD (> 0).
    tokens_per_gpu_second : float or array_like
        Measured tokens per second per GPU while serving (> 0); input, output or total tokens, each
        with its own throughput.
    utilisation : float or array_like, optional
        Fraction of paid hours spent serving at that throughput, in (0, 1]. Default 1.

    Returns
    -------
    float or ndarray
        USD per million tokens served.

    References
    ----------
    SemiAnalysis InferenceX (InferenceX-app PR #391 and docs/tco-calculator.md):
    ``$/M tokens = $/GPU-hr x 1e6 / (3600 x tok/s per GPU)``; utilisation as the rate divided by
    utilisation (softwareseni inference cost guide, 2025).

    Examples
    --------
    An H100 at $1.42 per GPU-hour serving 1,000 tokens/s, busy 60% of the time:

    >>> round(tco_cost_per_mtok_at_rate(1.42, 1000.0), 4)
    0.3944
    >>> round(tco_cost_per_mtok_at_rate(1.42, 1000.0, 0.6), 4)
    0.6574
    """
    return _usd_per_mtok(gpu_hour_usd / utilisation, tokens_per_gpu_second)


@chk.broadcasting
def tco_training_cost(tokens, gpu_hour_usd, flops_per_token, peak_tflops, mfu, goodput=1.0):
    """Cost of a training run: tokens x cost per token.

    Parameters
    ----------
    tokens : float or array_like
        Tokens trained (> 0).
    gpu_hour_usd, flops_per_token, peak_tflops, mfu : float or array_like
        As in :func:`tco_cost_per_mtok`.

    Returns
    -------
    float or ndarray
        USD for the run.

    Examples
    --------
    300B tokens of GPT-3 175B in FP8 at 39.5% MFU and $1.42/h:

    >>> round(tco_training_cost(300e9, 1.42, 1.07899e12, 1978.9, 0.395))
    163344
    """
    n = chk.checked("tokens", tokens)
    return training_cost_at_rate(
        n, tco_cost_per_mtok(gpu_hour_usd, flops_per_token, peak_tflops, mfu, goodput)
    )


@chk.broadcasting
def tco_training_days(tokens, gpus, flops_per_token, peak_tflops, mfu, goodput=1.0):
    """Wall-clock days of a run: ``tokens / (gpus * tokens/s per GPU) / 86400``.

    Parameters
    ----------
    tokens, flops_per_token, peak_tflops, mfu, goodput : float or array_like
        As in :func:`tco_training_cost`.
    gpus : float or array_like
        GPUs in the run (> 0).

    Returns
    -------
    float or ndarray
        Days.

    Examples
    --------
    >>> round(tco_training_days(300e9, 128, 1.07899e12, 1978.9, 0.395), 2)
    37.45
    """
    n = chk.checked("tokens", tokens)
    g = chk.checked("gpus", gpus)
    good = chk.checked("goodput", goodput)
    return _days(n, g, tco_tokens_per_gpu_second(flops_per_token, peak_tflops, mfu), good)


# --- steps of the chain (udfs.chain): one quantity from the quantities before it ---------------


def flops_per_token_6n(active_params):
    """The 6N rule: training FLOPs per token = 6 x the parameters a token uses (all of them for a
    dense model, the active ones for a mixture of experts).

    >>> f"{flops_per_token_6n(175e9):.3e}"
    '1.050e+12'
    """
    return chk.out(6.0 * chk.checked("active_params", active_params))


def flops_palm_step(active_params, layers, heads, head_dim, seq_len, window_layers, window):
    """The chain's PaLM step: :func:`flops_per_token_arch` in the "palm" convention, from the
    architecture fields it reads (``6A + 12 W ((L - L_w) s + L_w min(s, w))``, W = heads x
    head_dim).

    >>> f"{flops_palm_step(175e9, 96, 96, 128, 2048, 0, 0):.5e}"
    '1.07899e+12'
    """
    return flops_per_token_arch(
        "palm",
        seq_len,
        active_params,
        active_params,
        layers,
        1.0,
        heads,
        heads,
        head_dim,
        1.0,
        1.0,
        3.0,
        window_layers,
        window,
    )


#: the Megatron step's arguments in the chain's order: :data:`ARCH_FIELDS` with ``seq_len``
#: after ``vocab``
MEGATRON_STEP_ARGS = (*ARCH_FIELDS[:9], "seq_len", *ARCH_FIELDS[9:])


def flops_megatron_step(*values):
    """The chain's Megatron step: :func:`flops_per_token_arch` in the "megatron" convention, the
    arguments in the order of :data:`MEGATRON_STEP_ARGS`.

    >>> f"{flops_megatron_step(175e9, 175e9, 96, 12288, 96, 96, 128, 49152, 51200, 2048, 2, 0, 0):.4e}"
    '1.0764e+12'
    """
    return flops_per_token_arch("megatron", **dict(zip(MEGATRON_STEP_ARGS, values, strict=True)))


def flops_per_token_by_convention(convention, flops_palm, flops_6n, flops_megatron):
    """The FLOPs per token of the chosen convention ("palm", "6n" or "megatron") per scenario.

    ``convention`` is one name, a sequence of names, or an object with ``codes`` and
    ``categories`` (a dictionary-encoded column, :class:`gputco.udfs.scenario.Coded`).

    >>> flops_per_token_by_convention(["6n", "palm"], 1.0, 2.0, 3.0)
    array([2., 1.])
    """
    if hasattr(convention, "codes"):
        codes, names = np.asarray(convention.codes), list(convention.categories)
    elif isinstance(convention, str):
        codes, names = np.zeros((), dtype=np.intp), [convention]
    else:
        names, codes = np.unique(np.asarray(convention, dtype=str), return_inverse=True)
        codes = codes.reshape(np.shape(convention))
    index = []
    for name in names:
        conv = presets.normalize(name)
        if conv not in CONVENTIONS:
            raise UnknownNameError("convention", name, CONVENTIONS)
        index.append(CONVENTIONS.index(conv))
    choice = np.asarray(index, dtype=np.intp)[codes]
    table = np.broadcast_arrays(
        np.asarray(flops_palm, dtype=float),
        np.asarray(flops_6n, dtype=float),
        np.asarray(flops_megatron, dtype=float),
        choice,
    )
    return chk.out(np.choose(table[3], table[:3]))


def _usd_per_mtok(usd, tps, goodput=1.0):
    """The arithmetic of :func:`tco_cost_per_mtok_at_rate` on checked inputs, ``usd / (3600 x
    tps) x 1e6 / goodput`` as one division and one multiply (the constants taken together); a
    throughput that underflowed to 0 gives inf, as numpy does."""
    return chk.out(chk.ratio(usd, tps) * (1e6 / SECONDS_PER_HOUR / goodput))


@chk.broadcasting
def training_cost_at_rate(tokens, usd_per_mtok):
    """Cost of a run: ``tokens x usd_per_mtok / 1e6``, USD.

    >>> round(training_cost_at_rate(300e9, 0.5445))
    163350
    """
    return chk.out(chk.checked("usd_per_mtok", usd_per_mtok) * (chk.checked("tokens", tokens) / 1e6))


@chk.broadcasting
def training_gpu_hours(tokens, tokens_per_gpu_second, goodput=1.0):
    """GPU-hours paid for a run: ``tokens / (tokens/s per GPU x 3600) / goodput``.

    >>> round(training_gpu_hours(300e9, 724.4))
    115038
    """
    n = chk.checked("tokens", tokens)
    g = chk.checked("goodput", goodput)
    return chk.ratio(n / (SECONDS_PER_HOUR * g), chk.checked("tokens_per_gpu_second", tokens_per_gpu_second))


@chk.broadcasting
def cost_per_mtok_trained(gpu_hour_usd, tokens_per_gpu_second, goodput=1.0):
    """Cost of a million kept training tokens: ``gpu_hour_usd / (3600 x tokens/s) x 1e6 /
    goodput`` (lost work is paid for too).

    >>> round(cost_per_mtok_trained(1.42, 724.4, 0.9), 4)
    0.605
    """
    usd = chk.checked("gpu_hour_usd", gpu_hour_usd)
    tps = chk.checked("tokens_per_gpu_second", tokens_per_gpu_second)
    return _usd_per_mtok(usd, tps, chk.checked("goodput", goodput))


@chk.broadcasting
def training_days_at_rate(tokens, gpus, tokens_per_gpu_second, availability=1.0, goodput=1.0):
    """Wall-clock days of a run: ``tokens / (gpus x tokens/s per GPU) / 86400 / (availability x
    goodput)``.

    >>> round(training_days_at_rate(300e9, 128, 724.4), 2)
    37.45
    """
    n = chk.checked("tokens", tokens)
    g = chk.checked("gpus", gpus)
    lost = chk.checked("availability", availability) * chk.checked("goodput", goodput)
    return _days(n, g, chk.checked("tokens_per_gpu_second", tokens_per_gpu_second), lost)


def _days(tokens, gpus, tps, kept=1.0):
    """The arithmetic of :func:`training_days_at_rate` on checked inputs, ``tokens / (gpus x tps)
    / 86400 / kept`` as one division by the throughput (0 tokens/s: inf)."""
    return chk.ratio(tokens / (gpus * SECONDS_PER_DAY * kept), tps)
