
BprobabilitiesJ(nò<ãÇ†;v†¯;˜\D?¸pQ=æŸ=¸q<#ˆ³<WW;8Gº=