package dev.magus.workspace.spell;

import static dev.magus.policy.fs.AccessMode.R;
import static dev.magus.policy.fs.AccessMode.RW;
import static dev.magus.policy.fs.AccessMode.RWX;
import static dev.magus.policy.fs.AccessMode.RX;

import dev.magus.env.shim.ShimManager;
import dev.magus.policy.decl.Base;
import dev.magus.workspace.spell.SpellBuilder.ToolDir;

/**
 * The built-in python spell and the version managers' (mise, asdf, nvm, sdkman). A manager's
 * installs are read and run, never written: installing a tool is a person's act, and a build
 * that could rewrite the interpreter every later run uses would outlast the run.
 */
final class Managers {
    private Managers() {
    }

    /** pip, uv, virtualenvs (venv, virtualenvwrapper, pipenv, poetry) and pyenv. Never {@code ~/.pypirc} or pip.conf. */
    static Spell python(SpellHost host) {
        return new SpellBuilder("python", host)
                .variable("pip-cache", "PIP_CACHE_DIR", Base.USER_CACHE, "pip", RW)
                .variable("uv-cache", "UV_CACHE_DIR", Base.USER_CACHE, "uv", RW)
                .created("pip-cache", "uv-cache")
                .variable("uv-python", "UV_PYTHON_INSTALL_DIR", Base.XDG_DATA, "uv/python", RWX)
                .variable("uv-tools", "UV_TOOL_DIR", Base.XDG_DATA, "uv/tools", RWX)
                .variable("poetry-cache", "POETRY_CACHE_DIR", Base.USER_CACHE, "pypoetry", RWX)
                .variable("virtualenvs", "WORKON_HOME", Base.XDG_DATA, "virtualenvs", RWX)
                .variable("virtual-env", "VIRTUAL_ENV", RWX)
                .under("pyenv", ToolDir.of("PYENV_ROOT", ".pyenv"), "", RX)
                .pass("PYENV_ROOT", "PYENV_VERSION", "PYENV_DIR", "PIP_CACHE_DIR", "PIP_NO_CACHE_DIR", "PIP_DISABLE_PIP_VERSION_CHECK",
                        "UV_CACHE_DIR", "UV_PYTHON_INSTALL_DIR", "UV_TOOL_DIR", "UV_PYTHON", "UV_OFFLINE", "POETRY_CACHE_DIR",
                        "WORKON_HOME", "VIRTUAL_ENV", "PIPENV_VENV_IN_PROJECT", "PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE",
                        "PYTHONUNBUFFERED", "PYTHONHASHSEED", "PYTHONWARNINGS", "PYTHONUTF8")
                .manager(ShimManager.PYENV)
                .registries("pypi.org", "files.pythonhosted.org")
                .build();
    }

    /**
     * mise: its installs and shims, cache, state and global config. Its variables are named
     * one by one: {@code MISE_*} would pass {@code MISE_GITHUB_TOKEN} too.
     */
    static Spell mise(SpellHost host) {
        return new SpellBuilder("mise", host)
                .variable("mise-data", "MISE_DATA_DIR", Base.XDG_DATA, "mise", RX)
                .variable("mise-cache", "MISE_CACHE_DIR", Base.USER_CACHE, "mise", RW)
                .variable("mise-state", "MISE_STATE_DIR", Base.XDG_STATE, "mise", RW)
                .variable("mise-config", "MISE_CONFIG_DIR", Base.XDG_CONFIG, "mise", R)
                .path("tool-versions", "~/.tool-versions", R)
                .pass("MISE_DATA_DIR", "MISE_CACHE_DIR", "MISE_STATE_DIR", "MISE_CONFIG_DIR", "MISE_GLOBAL_CONFIG_FILE",
                        "MISE_ENV", "MISE_SHELL", "MISE_TRUSTED_CONFIG_PATHS", "MISE_EXPERIMENTAL", "MISE_LOG_LEVEL", "MISE_YES")
                .manager(ShimManager.MISE)
                .build();
    }

    /** asdf: its install, its data dir (plugins, installs, shims), its config and the global tool versions. */
    static Spell asdf(SpellHost host) {
        return new SpellBuilder("asdf", host)
                .variable("asdf-dir", "ASDF_DIR", RX)
                .under("asdf-data", ToolDir.of("ASDF_DATA_DIR", ".asdf"), "", RX)
                .variable("asdfrc", "ASDF_CONFIG_FILE", Base.HOME, ".asdfrc", R)
                .path("tool-versions", "~/.tool-versions", R)
                .pass("ASDF_DIR", "ASDF_DATA_DIR", "ASDF_CONFIG_FILE", "ASDF_DEFAULT_TOOL_VERSIONS_FILENAME", "ASDF_CONCURRENCY")
                .manager(ShimManager.ASDF)
                .build();
    }

    /** nvm: the node versions it installed (a version's bin dir is what sits on PATH). */
    static Spell nvm(SpellHost host) {
        return new SpellBuilder("nvm", host)
                .under("nvm", ToolDir.of("NVM_DIR", ".nvm"), "", RX)
                .pass("NVM_DIR", "NVM_BIN", "NVM_INC", "NVM_CD_FLAGS")
                .manager(ShimManager.NVM)
                .build();
    }

    /** SDKMAN!: its candidates (JDKs, Maven, Gradle, each version's bin dir on PATH). */
    static Spell sdkman(SpellHost host) {
        ToolDir sdkman = ToolDir.of("SDKMAN_DIR", ".sdkman");
        return new SpellBuilder("sdkman", host)
                .under("sdkman-candidates", sdkman, "candidates", RX)
                .under("sdkman-config", sdkman, "etc/config", R)
                .variable("sdkman-candidates-dir", "SDKMAN_CANDIDATES_DIR", RX)
                .pass("SDKMAN_DIR", "SDKMAN_CANDIDATES_DIR", "SDKMAN_PLATFORM", "SDKMAN_CANDIDATES_API")
                .manager(ShimManager.SDKMAN)
                .registries("api.sdkman.io")
                .build();
    }
}
