"""Compute: training FLOPs per token, throughput at a given MFU, cost per token, cost and time of a run.

MFU (model FLOPs utilisation) = achieved model FLOP/s / (GPUs x dense peak FLOP/s at the precision
used). Peaks are DENSE TFLOPS per GPU (docs/facts.md section 2). All functions are vectorised.
"""

from __future__ import annotations

import numpy as np

from . import _check as chk
from . import presets
from .errors import InputTypeError, UnknownNameError

CONVENTIONS = ("palm", "6n", "megatron")
DEFAULT_CONVENTION = "palm"
SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86400.0


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
    chk.broadcast(params=params, layers=layers, d_model=d_model, seq_len=seq_len)
    n = chk.checked("params", params)
    layer = chk.checked("layers", layers)
    d = chk.checked("d_model", d_model)
    s = chk.checked("seq_len", seq_len)
    return chk.out(6.0 * n + 12.0 * layer * d * s)


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
    chk.broadcast(layers=layers, d_model=d_model, heads=heads, kv_heads=kv_heads, ffn=ffn,
                  vocab=vocab, seq_len=seq_len, mlp_matrices=mlp_matrices)
    layer = chk.checked("layers", layers)
    h = chk.checked("d_model", d_model)
    a = chk.checked("heads", heads)
    g = chk.checked("kv_heads", kv_heads)
    f = chk.checked("ffn", ffn)
    v = chk.checked("vocab", vocab)
    s = chk.checked("seq_len", seq_len)
    m = chk.checked("mlp_matrices", mlp_matrices)
    return chk.out(layer * h * h * (12.0 + 12.0 * g / a + 6.0 * m * f / h + 12.0 * s / h) + 6.0 * v * h)


def tco_flops_per_token(model, seq_len=None, convention=DEFAULT_CONVENTION):
    """Training FLOPs per token of a model preset (or a bare parameter count with "6n").

    Parameters
    ----------
    model : str or float
        A model preset key (``"gpt3_175b"``, ``"llama3_8b"``, ``"llama3_70b"``, ``"llama3_405b"``),
        or a parameter count (only with ``convention="6n"``).
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
    """
    conv = presets.normalize(chk.text("convention", "palm" if convention is None else convention))
    if conv not in CONVENTIONS:
        raise UnknownNameError("convention", convention, CONVENTIONS)
    if not isinstance(model, str):
        if conv != "6n":
            raise InputTypeError(
                "model", model,
                f"a model preset name for convention {conv!r} (a bare parameter count needs "
                "convention '6n')",
            )
        return chk.out(6.0 * chk.positive("model", model))
    m = presets.model(model)
    s = m.value("seq_len") if seq_len is None else seq_len
    if conv == "6n":  # 6N ignores the sequence length; it is still checked and broadcast
        s = chk.checked("seq_len", s)
        return chk.out(np.full(np.shape(s), 6.0 * m.value("params")))
    if conv == "palm":
        return flops_per_token_palm(m.value("params"), m.value("layers"), m.value("d_model"), s)
    return flops_per_token_megatron(
        m.value("layers"), m.value("d_model"), m.value("heads"), m.value("kv_heads"),
        m.value("ffn"), m.value("vocab"), s, m.value("mlp_matrices"),
    )


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
    chk.broadcast(flops_per_token=flops_per_token, peak_tflops=peak_tflops, mfu=mfu)
    f = chk.checked("flops_per_token", flops_per_token)
    peak = chk.checked("peak_tflops", peak_tflops)
    u = chk.checked("mfu", mfu)
    return chk.out(u * peak * 1e12 / f)


def tco_cost_per_mtok(gpu_hour_usd, flops_per_token, peak_tflops, mfu):
    """Cost of one million trained tokens: ``gpu_hour_usd / (3600 * tokens/s per GPU) * 1e6``.

    Parameters
    ----------
    gpu_hour_usd : float or array_like
        TCO (or price) per GPU-hour, USD (> 0).
    flops_per_token : float or array_like
        Training FLOPs per token (> 0).
    peak_tflops : float or array_like
        Dense peak TFLOPS per GPU (> 0).
    mfu : float or array_like
        Model FLOPs utilisation, in (0, 1].

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
    chk.broadcast(gpu_hour_usd=gpu_hour_usd, flops_per_token=flops_per_token,
                  peak_tflops=peak_tflops, mfu=mfu)
    usd = chk.checked("gpu_hour_usd", gpu_hour_usd)
    return _usd_per_mtok(usd, tco_tokens_per_gpu_second(flops_per_token, peak_tflops, mfu))


def tco_training_cost(tokens, gpu_hour_usd, flops_per_token, peak_tflops, mfu):
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
    chk.broadcast(tokens=tokens, gpu_hour_usd=gpu_hour_usd, flops_per_token=flops_per_token,
                  peak_tflops=peak_tflops, mfu=mfu)
    n = chk.checked("tokens", tokens)
    return training_cost_at_rate(n, tco_cost_per_mtok(gpu_hour_usd, flops_per_token, peak_tflops,
                                                      mfu))


def tco_training_days(tokens, gpus, flops_per_token, peak_tflops, mfu):
    """Wall-clock days of a run: ``tokens / (gpus * tokens/s per GPU) / 86400``.

    Parameters
    ----------
    tokens : float or array_like
        Tokens trained (> 0).
    gpus : float or array_like
        GPUs in the run (> 0).
    flops_per_token, peak_tflops, mfu : float or array_like
        As in :func:`tco_tokens_per_gpu_second`.

    Returns
    -------
    float or ndarray
        Days.

    Examples
    --------
    >>> round(tco_training_days(300e9, 128, 1.07899e12, 1978.9, 0.395), 2)
    37.45
    """
    chk.broadcast(tokens=tokens, gpus=gpus, flops_per_token=flops_per_token,
                  peak_tflops=peak_tflops, mfu=mfu)
    n = chk.checked("tokens", tokens)
    g = chk.checked("gpus", gpus)
    return _days(n, g, tco_tokens_per_gpu_second(flops_per_token, peak_tflops, mfu))


# --- steps of the chain (udfs.chain): one quantity from the quantities before it ---------------


def flops_per_token_6n(params):
    """The 6N rule: training FLOPs per token = 6 x parameters (forward 2N + backward 4N).

    >>> f"{flops_per_token_6n(175e9):.3e}"
    '1.050e+12'
    """
    return chk.out(6.0 * chk.checked("params", params))


def flops_per_token_by_convention(convention, flops_palm, flops_6n, flops_megatron):
    """The FLOPs per token of the chosen convention ("palm", "6n" or "megatron") per scenario.

    ``convention`` is one name, a sequence of names, or an object with ``codes`` and
    ``categories`` (a dictionary-encoded column, :class:`udfs.scenario.Coded`).

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
    table = np.broadcast_arrays(np.asarray(flops_palm, dtype=float),
                                np.asarray(flops_6n, dtype=float),
                                np.asarray(flops_megatron, dtype=float), choice)
    return chk.out(np.choose(table[3], table[:3]))


def usd_per_mtok_at_rate(gpu_hour_usd, tokens_per_gpu_second):
    """Cost of a million tokens at a throughput: ``gpu_hour_usd / (3600 x tokens/s) x 1e6``.

    >>> round(usd_per_mtok_at_rate(1.42, 724.4), 4)
    0.5445
    """
    chk.broadcast(gpu_hour_usd=gpu_hour_usd, tokens_per_gpu_second=tokens_per_gpu_second)
    usd = chk.checked("gpu_hour_usd", gpu_hour_usd)
    return _usd_per_mtok(usd, chk.checked("tokens_per_gpu_second", tokens_per_gpu_second))


def _usd_per_mtok(usd, tps):
    """The arithmetic of :func:`usd_per_mtok_at_rate` on checked inputs; a throughput that
    underflowed to 0 gives inf, as numpy does."""
    return chk.out(chk.ratio(usd, SECONDS_PER_HOUR * tps) * 1e6)


def training_cost_at_rate(tokens, usd_per_mtok):
    """Cost of a run: ``tokens x usd_per_mtok / 1e6``, USD.

    >>> round(training_cost_at_rate(300e9, 0.5445))
    163350
    """
    chk.broadcast(tokens=tokens, usd_per_mtok=usd_per_mtok)
    return chk.out(chk.checked("tokens", tokens) * chk.checked("usd_per_mtok", usd_per_mtok) / 1e6)


def training_gpu_hours(tokens, tokens_per_gpu_second):
    """GPU-hours of a run: ``tokens / (tokens/s per GPU x 3600)``.

    >>> round(training_gpu_hours(300e9, 724.4))
    115038
    """
    chk.broadcast(tokens=tokens, tokens_per_gpu_second=tokens_per_gpu_second)
    n = chk.checked("tokens", tokens)
    return chk.out(chk.ratio(n, chk.checked("tokens_per_gpu_second", tokens_per_gpu_second)
                             * SECONDS_PER_HOUR))


def training_days_at_rate(tokens, gpus, tokens_per_gpu_second):
    """Wall-clock days of a run: ``tokens / (gpus x tokens/s per GPU) / 86400``.

    >>> round(training_days_at_rate(300e9, 128, 724.4), 2)
    37.45
    """
    chk.broadcast(tokens=tokens, gpus=gpus, tokens_per_gpu_second=tokens_per_gpu_second)
    n = chk.checked("tokens", tokens)
    g = chk.checked("gpus", gpus)
    return _days(n, g, chk.checked("tokens_per_gpu_second", tokens_per_gpu_second))


def _days(tokens, gpus, tps):
    """The arithmetic of :func:`training_days_at_rate` on checked inputs (0 tokens/s: inf)."""
    return chk.out(chk.ratio(tokens, gpus * tps) / SECONDS_PER_DAY)
