#!/bin/bash
# Rebuild the calibration corpus: the 13 sites of ../shared/calibration plus this project's additions (SITES.md here).
#   MIRROR_DIR=<fetched repos> CORPUS_DIR=<corpus> [STAGE_DIR=<stage>] [SHARED=../shared/calibration] bash calibration/build.sh
# Fetch the repositories first (the search tool's `fetch`, github:<owner>/<name>); MIRROR_DIR holds owner+name/repo.
set -e
: "${MIRROR_DIR:?set MIRROR_DIR to the folder holding the fetched bare repos}"
: "${CORPUS_DIR:?set CORPUS_DIR to the output folder}"
HERE="$(cd "$(dirname "$0")" && pwd)"
SHARED="${SHARED:-$HERE/../../shared/calibration}"
export CORPUS_DIR STAGE_DIR="${STAGE_DIR:-$CORPUS_DIR/../stage}"
EXTRAS=1 bash "$SHARED/build.sh"   # with its four extras, which this manifest scores too
M=$MIRROR_DIR
X="python3 $SHARED/extract_site.py"
gd() { if [ -d "$M/$1/repo/.git" ]; then echo "$M/$1/repo/.git"; else echo "$M/$1/repo"; fi; }

$X --git-dir "$(gd javanigus+qualys.com-eleventy)" --ref a89fe43a0f66aacfecce1829e0146eb775e4a215 --subdir _site --name qualys --host www.qualys.com --host qualys.com \
   --exclude '^(forms|emails|lp|test|redesign-2024|quazam|offer|asset|beta-signup|videos)/' --section-cap 40
$X --git-dir "$(gd garethjohnsdesign+geckoboard.com)" --ref b6c77c10c331d5f147b76b34b93944db71ed376a --subdir _site --name geckoboard --host www.geckoboard.com --host geckoboard.com --section-cap 40
$X --git-dir "$(gd appknox+website)" --ref d70420ba7507468cd52ff4b744024c0ceda2e088 --subdir _site --name appknox --host www.appknox.com --host appknox.com
$X --git-dir "$(gd exceptionless+Website)" --ref 7012fcad6e3c4dfc8f876b164b3a6653800e867d --subdir _site --name exceptionless --host exceptionless.com --host www.exceptionless.com --section-cap 40
