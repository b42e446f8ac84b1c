#!/bin/bash
# Rebuild the calibration corpus: every site of calibration/sites.tsv (see SITES.md here).
#   MIRROR_DIR=<fetched repos> CORPUS_DIR=<corpus> [STAGE_DIR=<stage>] bash calibration/build.sh [name ...]
# Fetch the repositories first (the search tool's `fetch`, github:<owner>/<name>); MIRROR_DIR holds owner+name/repo
# (a bare repository, or a clone with repo/.git). With names, only those sites are built.
set -e
: "${MIRROR_DIR:?set MIRROR_DIR to the folder holding the fetched bare repos}"
: "${CORPUS_DIR:?set CORPUS_DIR to the output folder}"
HERE="$(cd "$(dirname "$0")" && pwd)"
export CORPUS_DIR STAGE_DIR="${STAGE_DIR:-$CORPUS_DIR/../stage}"
mkdir -p "$CORPUS_DIR" "$STAGE_DIR"
M=$MIRROR_DIR
gd() { if [ -d "$M/$1/repo/.git" ]; then echo "$M/$1/repo/.git"; else echo "$M/$1/repo"; fi; }
# site <name> <owner+repo> <extract_site.py arguments…>: builds it unless names were given and it is not one of them.
site() {
  local name=$1 repo=$2; shift 2
  if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then return 0; fi
  python3 "$HERE/extract_site.py" --git-dir "$(gd "$repo")" --name "$name" "$@"
}
ONLY="$*"

# The 13 sites of the shared corpus and its four extras.
site openzeppelin shamaleyte+openzeppelin.com --ref 9b4a68f3b711b7c12c6d73eb79b55770fed8307d --subdir _site --host openzeppelin.com --host www.openzeppelin.com
site freeradius FreeRADIUS+www.freeradius.org --ref 2fe5eabe5d4ce24bd905aa05c65277ab718425f1 --subdir _site --host freeradius.org --host www.freeradius.org --exclude '^google[0-9a-f]+|^(sample|styles)\.html' --section-cap 80
site teamt5 teamt5-it+official-website --ref 66260d0abe3c1cde2789157fcb934e673cea9b6f --subdir _site --host teamt5.org --host www.teamt5.org --exclude '^zh/'
site sourcegraph hdrhbbu1+sourcegraph.github.io --ref efb720b403deeb228525756fcbaee83249f66fce --subdir _site --host about.sourcegraph.com --host sourcegraph.com
site centrifuge centrifuge+website --ref 18dd159c20f2996d1965db9be028e2ee85dfb3fd --subdir public --host centrifuge.io --host www.centrifuge.io
site mover-io capusj+mover-io.github.com --ref ee6c18d56f91605fc577b45f4c524b8bfbbc4a3a --subdir _site --host mover.io --host www.mover.io
site idemeum idemeum+idemeum.github.io --ref c5b2850967735d611cbd1272823cede2abf74ec5 --subdir _site --host idemeum.com --host www.idemeum.com --exclude '^docs-source/|^docs/material/|^(untitled|test-mobile|qr-page|simple-error|login|login-mobile)'
site flightwatching flightwatching+flightwatching.github.io --ref 158da89560632bc8e88f3f36d5ad768df0e1e36d --subdir _site --host www.flightwatching.fr --host flightwatching.fr --host www.flightwatching.com
site engage-so engage-so+engage-so.github.io --ref 7f137577aae4b38102b2d96ee7d75786cd4a64ac --subdir _site --host engage.so --host www.engage.so
site depositfix integrationagent+depositfix-site --ref c9e386f6166545adfbe34add8ca6b8cb3e36701b --subdir public --host depositfix.com --host www.depositfix.com --host old.depositfix.com
site slash jetlej+slash-website --ref df3ba69653e38dba5ef4049268fee7da361cccf8 --subdir dist --host getslash.co --host www.getslash.co
site signalcloud illoyd+signalcloud-web --ref 0634a44c7f0b183f1bbfbed67c882c8bdf9a31be --subdir public --host signalcloudapp.com --host www.signalcloudapp.com
site overv-io mirumee+overv.io-splash --ref ba9737e70a2623042c8a2b907fb7f36252de6a4a --subdir public --host overv.io --host www.overv.io
site genezio Genez-io+genez-io.github.io --ref 6b891f3804171e14d30e7081ed5838f1a19515a0 --subdir public --host genez.io --host www.genez.io
site booleanapp booleanapp+booleanapp.github.io --ref e91770b454f5ce1516fb00934dc7a4ce43d00a5f --host www.booleanapp.com --host booleanapp.com
site saiku OSBI+saiku-website --ref 77e176e3c95d35558af2bdb16e43c0621e8fcf77 --subdir _site --host www.analytical-labs.com --host analytical-labs.com
site zeppelin-2019 OpenZeppelin+zeppelin.solutions --ref 0521515887bf24ebae99c71140cf6c6f75bb78f6 --subdir _site --host zeppelin.solutions --host www.zeppelin.solutions

# Added by this project (SITES.md, "Added here").
site qualys javanigus+qualys.com-eleventy --ref a89fe43a0f66aacfecce1829e0146eb775e4a215 --subdir _site --host www.qualys.com --host qualys.com \
   --exclude '^(forms|emails|lp|test|redesign-2024|quazam|offer|asset|beta-signup|videos)/' --section-cap 40
site geckoboard garethjohnsdesign+geckoboard.com --ref b6c77c10c331d5f147b76b34b93944db71ed376a --subdir _site --host www.geckoboard.com --host geckoboard.com --section-cap 40
site appknox appknox+website --ref d70420ba7507468cd52ff4b744024c0ceda2e088 --subdir _site --host www.appknox.com --host appknox.com
site exceptionless exceptionless+Website --ref 7012fcad6e3c4dfc8f876b164b3a6653800e867d --subdir _site --host exceptionless.com --host www.exceptionless.com --section-cap 40

# Sites built in the browser: their bundles are kept (SITES.md, "Added for sites built in the browser").
site effect-network effectai+effect-network-website --ref fcae29131183b913f83e724eb66bef65defbae71 --host effect.network --host www.effect.network --assets js,mjs,json,css
site element-ui ElemeFE+element --ref d74dfa7508368871280199744aab581059dfa00a --host element.eleme.io --assets js,mjs,json,css --exclude '^[0-9]+\.[0-9]+/|^appcache/'
site itering itering+home-io --ref 6cce0bc82088ec9f0292894ea6f7311289007ea0 --host www.itering.io --host itering.io --assets js,mjs,json,css
site darwinia darwinia-network+home --ref 42745b0b78c65cd2a19f217889c161896528ca4d --host darwinia.network --host www.darwinia.network --assets js,mjs,json,css
site dolca-pool 2nd-Layer+www.dolcapool.eu --ref 538d01c89233618536696f6df5858874febd1de6 --host dolca.2ndlayer.eu --host www.dolcapool.eu --host dolcapool.eu --assets js,mjs,json,css

# Sales-led regulated vendors, a shutdown, self-serve startups (SITES.md, "Added for the kinds a blind check misjudged").
site 5c-network 5c-website+Compay-website-v2 --ref ac0add845329efc9c01e93bbd3ec675b60550004 --subdir public --host 5cnetwork.com --host www.5cnetwork.com --exclude '^(_gatsby/|google[0-9a-f]+\.html)'
site aerlytix stelltec+aerlytix-website-v2 --ref adccf64c98b2723026b258b036b45f04e037c57d --subdir public --host www.aerlytix.com --host aerlytix.com --exclude '^(news|tag|tags|team|rss)/| copy'
site huntington aegerton+website --ref 878902f4184a13b79112d9a0383f196066e2ba80 --subdir public --host www.huntingtonunderwriting.com --host huntingtonunderwriting.com --exclude '^(about\.utf8|1|20[0-9][0-9]|categories|tags|post)/'
site brackets adobe+brackets.io --ref 7f932e0f12020a19a0b169b752616701bf6b2027 --host brackets.io --host www.brackets.io --section-cap 40
site caffeine caffeine+site --ref f4d9ecae74fa2c491e69990a60945164e0ea3224 --subdir _site --host www.caffei.net --host caffei.net --exclude '^(doc|press-kit|img|aboutme)/'
site genius-sheets GeniusSheets+gs_site --ref e0b589c628e0e4d14a19831c325e2cc5d946699b --subdir _site --host geniussheets.us --host www.geniussheets.us
